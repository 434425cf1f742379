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
          const ops = items.map((item): AnyBulkWriteOperation => ({
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
