/** Amounts in minor units (cents) as people read them, e.g. 1050 USD → "$10.50". */
export function formatMoney(cents: number, currency: string, locale = 'en-US'): string {
  const iso = currency.toUpperCase();
  const format = formatterFor(locale, iso);
  if (!format) return `${(cents / 100).toFixed(2)} ${iso}`;
  return format.format(cents / 10 ** format.digits);
}

interface MoneyFormat {
  format(amount: number): string;
  digits: number;
}

/**
 * Building an Intl formatter costs far more than using one (a mail per commission built one
 * each: 1% of the affiliate service's CPU in a drain), and a service meets few currencies.
 */
const formatters = new Map<string, MoneyFormat | null>();

function formatterFor(locale: string, iso: string): MoneyFormat | null {
  const key = `${locale}|${iso}`;
  let known = formatters.get(key);
  if (known === undefined) {
    try {
      const format = new Intl.NumberFormat(locale, { style: 'currency', currency: iso });
      const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
      known = { format: (amount) => format.format(amount), digits };
    } catch {
      known = null; // an unknown code (Intl refuses it): shown with two decimals
    }
    // Codes come from merchants' data; keep the cache from growing without bound.
    if (formatters.size < 1_000) formatters.set(key, known);
  }
  return known;
}
