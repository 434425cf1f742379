/**
 * Single-document updates that arrive together share one unordered `bulkWrite` per collection,
 * so many concurrent handlers cost one round trip instead of one each. Each caller still awaits
 * its own update, and acknowledges its message only after the write that holds it.
 */
import type { AnyBulkWriteOperation, Model } from 'mongoose';
import { Batcher } from '@aff/messaging';

interface Update {
  filter: Record<string, unknown>;
  update: Record<string, unknown>;
}

export class BulkUpdates {
  private readonly batchers = new Map<Model<never>, Batcher<Update>>();

  updateOne<T>(
    model: Model<T>,
    filter: Record<string, unknown>,
    update: Record<string, unknown>,
  ): Promise<void> {
    const key = model as unknown as Model<never>;
    let batcher = this.batchers.get(key);
    if (!batcher) {
      batcher = new Batcher<Update>({
        maxItems: 500,
        flush: async (items) => {
          const ops = mergeIncrements(items).map((item): AnyBulkWriteOperation => ({
            updateOne: { filter: item.filter, update: item.update },
          }));
          await model.collection.bulkWrite(ops as never, { ordered: false });
          return items.map(() => undefined);
        },
      });
      this.batchers.set(key, batcher);
    }
    return batcher.push({ filter, update });
  }
}

/**
 * `$inc` updates of one document (same filter) become one update adding their sums: a hot
 * document (the one affiliate every visit counts for) then costs one write per batch, not one
 * per event. An update may also `$set` constant fields (the currency of a statistics bucket);
 * it joins only updates setting exactly the same values, so the merged write ends as each of
 * them would have. Anything else keeps its place and order relative to updates of the same
 * filter.
 */
export function mergeIncrements(items: Update[]): Update[] {
  const merged: Update[] = [];
  const open = new Map<string, { sets: string; sums: Record<string, number> }>();
  for (const item of items) {
    const key = JSON.stringify(item.filter);
    const inc = incrementsOf(item.update);
    if (!inc) {
      open.delete(key); // a later $inc must not jump ahead of this update
      merged.push(item);
      continue;
    }
    const sets = JSON.stringify(item.update.$set ?? {});
    const current = open.get(key);
    if (current && current.sets === sets) {
      for (const [field, by] of Object.entries(inc))
        current.sums[field] = (current.sums[field] ?? 0) + by;
      continue;
    }
    const sums = { ...inc };
    open.set(key, { sets, sums });
    merged.push({
      filter: item.filter,
      update: item.update.$set ? { $inc: sums, $set: item.update.$set } : { $inc: sums },
    });
  }
  return merged;
}

/** The numeric `$inc` of an update made only of `$inc` (and maybe `$set`), else undefined. */
function incrementsOf(update: Record<string, unknown>): Record<string, number> | undefined {
  const { $inc, $set, ...rest } = update;
  if (!$inc || Object.keys(rest).length > 0) return undefined;
  if ($set !== undefined && (typeof $set !== 'object' || $set === null)) return undefined;
  const inc = $inc as Record<string, unknown>;
  if (!Object.values(inc).every((v) => typeof v === 'number')) return undefined;
  // A field both set and incremented is refused by the server; never merge around it.
  if ($set && Object.keys(inc).some((field) => field in ($set as object))) return undefined;
  return inc as Record<string, number>;
}
