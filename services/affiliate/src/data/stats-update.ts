/** The `$inc` / `$set` of a statistics delta on an affiliate document's `commission_stats`. */
import { STAT_KEYS, type StatDelta } from '../domain/stat-deltas';

export function statsUpdate(delta: StatDelta): {
  $inc: Record<string, number>;
  $set: Record<string, string>;
} {
  const $inc: Record<string, number> = {};
  const $set: Record<string, string> = {};
  for (const [currency, bucket] of delta) {
    // A currency becomes a field name: anything but an ISO-like code could address another path.
    if (!/^[A-Za-z0-9_]{1,10}$/.test(currency)) continue;
    for (const key of STAT_KEYS) {
      const path = `commission_stats.currencies.${currency}.${key}`;
      // Every key of a currency exists once it has any figure, as the recount shows it.
      $inc[`${path}.cents`] = bucket[key];
      $set[`${path}.currency_iso`] = currency;
    }
  }
  return { $inc, $set };
}
