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
 * Pure `$inc` updates of one document (same filter) become one update adding their sums: a hot
 * document (the one affiliate every visit counts for) then costs one write per batch, not one
 * per event. Anything else keeps its place and order relative to updates of the same filter.
 */
export function mergeIncrements(items: Update[]): Update[] {
  const merged: Update[] = [];
  const open = new Map<string, Record<string, number>>();
  for (const item of items) {
    const key = JSON.stringify(item.filter);
    const inc = item.update.$inc as Record<string, unknown> | undefined;
    const onlyNumbers =
      inc !== undefined &&
      Object.keys(item.update).length === 1 &&
      Object.values(inc).every((v) => typeof v === 'number');
    if (!onlyNumbers) {
      open.delete(key); // a later $inc must not jump ahead of this update
      merged.push(item);
      continue;
    }
    const sums = open.get(key);
    if (sums) {
      for (const [field, by] of Object.entries(inc as Record<string, number>))
        sums[field] = (sums[field] ?? 0) + by;
      continue;
    }
    const fresh = { ...(inc as Record<string, number>) };
    open.set(key, fresh);
    merged.push({ filter: item.filter, update: { $inc: fresh } });
  }
  return merged;
}
