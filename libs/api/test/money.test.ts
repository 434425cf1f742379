/** Amounts in minor units read as people read them, for each currency's own decimals. */
import { formatMoney } from '../src/money';

it('formats minor units with the currency’s decimals, again and again', () => {
  for (let i = 0; i < 3; i++) {
    expect(formatMoney(1050, 'usd')).toBe('$10.50');
    expect(formatMoney(1050, 'JPY')).toBe('¥1,050');
    expect(formatMoney(123456, 'EUR', 'de-DE')).toBe('1.234,56\u00a0€');
  }
});

it('still shows an amount whose currency Intl does not know', () => {
  expect(formatMoney(1050, 'zz1')).toBe('10.50 ZZ1');
  expect(formatMoney(990, 'zz1')).toBe('9.90 ZZ1');
});
