/**
 * Amounts in a currency's own units, from its ISO 4217 exponent (the `currency-codes` package
 * keeps the standard's table, so a new or changed currency comes with an update, not an edit).
 */
import * as currencyCodes from 'currency-codes';

/** The number of decimals of the currency (2 for USD, 0 for JPY, 3 for KWD); null if unknown. */
export function minorUnitExponent(currency: string): number | null {
  const digits = currencyCodes.code(currency.toUpperCase())?.digits;
  return typeof digits === 'number' && Number.isInteger(digits) && digits >= 0 ? digits : null;
}

/** `2469` USD → `24.69`; `1500` JPY → `1500`; dot decimal, no grouping, no sign for zero. */
export function formatAmount(minorUnits: number, currency: string): string {
  const exponent = minorUnitExponent(currency);
  if (exponent === null) throw new Error(`${currency} has no ISO 4217 minor unit`);
  if (!Number.isSafeInteger(minorUnits)) throw new Error(`amount ${minorUnits} is not whole`);
  const sign = minorUnits < 0 ? '-' : '';
  const digits = String(Math.abs(minorUnits)).padStart(exponent + 1, '0');
  if (exponent === 0) return sign + digits;
  return `${sign}${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}
