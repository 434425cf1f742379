/**
 * Writes a read-model record from an event unless the stored copy is newer: events of one
 * record can arrive late, twice or out of order, and replaying any of them must change nothing.
 * FerretDB does not isolate the filter from the write, so two writers of one record must not
 * run at once: each read model has one consumer, handling one event at a time.
 */
import type { Model } from 'mongoose';
import { isDuplicateKeyError } from '@aff/mongo';

interface Versioned {
  _id: string;
  merchant_id: string;
  updated_at: Date;
}

/**
 * `fields` are what the event says; `onInsert` are set only when the record is new (fields the
 * events never own). Returns whether the event was applied (false: the stored copy is newer).
 */
export async function upsertIfNewer<T extends Versioned>(
  model: Model<T>,
  record: Versioned & Record<string, unknown>,
  onInsert: Record<string, unknown> = {},
): Promise<boolean> {
  const { _id, merchant_id, updated_at, ...fields } = record;
  const filter = { _id, merchant_id, updated_at: { $lte: updated_at } };
  const update = { $set: { ...fields, updated_at } };
  // Two attempts: a concurrent insert of the same record makes the first insert collide, and
  // the update must then be tried against the copy that won.
  for (let attempt = 0; attempt < 2; attempt++) {
    const result = await model.updateOne(filter as never, update as never).exec();
    if (result.matchedCount > 0) return true;
    try {
      await model.create({ ...onInsert, ...record } as never);
      return true;
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
  }
  return false;
}
