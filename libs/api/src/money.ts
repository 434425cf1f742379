/** Amounts in minor units (cents) as people read them, e.g. 1050 USD → "$10.50". */
export function formatMoney(cents: number, currency: string, locale = 'en-US'): string {
  const iso = currency.toUpperCase();
  try {
    const format = new Intl.NumberFormat(locale, { style: 'currency', currency: iso });
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    return format.format(cents / 10 ** digits);
  } catch {
    // An unknown code (Intl refuses it): still show the amount, with two decimals.
    return `${(cents / 100).toFixed(2)} ${iso}`;
  }
}
