/**
 * Conditional single-document writes that each learn whether they applied, sent together as
 * one unordered `bulkWrite` per collection: a hot consumer's conditional writes become one
 * command per batch instead of one `findAndModify` or `update` each.
 *
 * A bulk write reports how many operations matched, not which. So every write goes as an
 * upsert whose filter pins `_id`: when the filter matches, the update applies; when it matches
 * nothing although a document with that `_id` exists, the upsert's insert collides on `_id` and
 * that operation alone fails with a duplicate key (on MongoDB 7 as on the local server). When no
 * document has that `_id`, the upsert inserts one, which is what read models that keep the
 * newest copy want, and why callers that only update must write records that are never deleted.
 */
import type { Model } from 'mongoose';
import { Batcher } from '@aff/messaging';
import { isDuplicateKeyError } from './connection';
import { failuresByIndex } from './bulk-failures';

interface ConditionalUpsert {
  filter: Record<string, unknown>;
  update: Record<string, unknown>;
}

export class ConditionalUpserts {
  /** One batcher per collection: a bulk write addresses one. */
  private readonly batchers = new WeakMap<Model<never>, Batcher<ConditionalUpsert>>();

  /**
   * True when the write applied (matched, or inserted a new document); false when its `_id`
   * collided, i.e. the document exists and did not match the filter. The filter must pin `_id`.
   * An update that sets a unique field must not come here: its own duplicate key would read as
   * "did not match".
   */
  async upsert<T>(
    model: Model<T>,
    filter: Record<string, unknown>,
    update: Record<string, unknown>,
  ): Promise<boolean> {
    try {
      await this.batcherOf(model).push({ filter, update });
      return true;
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  }

  private batcherOf<T>(model: Model<T>): Batcher<ConditionalUpsert> {
    const key = model as unknown as Model<never>;
    let batcher = this.batchers.get(key);
    if (!batcher) {
      batcher = new Batcher<ConditionalUpsert>({
        // Each operation keeps its own outcome: one document's collision fails only its caller.
        flush: async (items) => {
          const operations = items.map(({ filter, update }) => ({
            updateOne: { filter, update, upsert: true },
          }));
          try {
            await model.collection.bulkWrite(operations as never, { ordered: false });
            return items.map(() => undefined);
          } catch (error) {
            return failuresByIndex(error, items.length);
          }
        },
      });
      this.batchers.set(key, batcher);
    }
    return batcher;
  }
}
