/**
 * Writes a read-model record from an event unless the stored copy is newer: events of one
 * record can arrive late, twice or out of order, and replaying any of them must change nothing.
 * One conditional upsert does it (a round trip per event, as the read models apply every
 * commission, affiliate and campaign event they see).
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
  const set = { $set: { ...fields, updated_at } };
  const update = Object.keys(onInsert).length > 0 ? { ...set, $setOnInsert: onInsert } : set;
  try {
    // No stored copy at or before this version: the upsert inserts one, and its `_id` collides
    // when a newer copy is stored.
    const result = await model.updateOne(filter as never, update as never, { upsert: true }).exec();
    return result.matchedCount > 0 || result.upsertedCount > 0;
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
  // The collision may also be a concurrent first insert of this record (MongoDB retries such an
  // upsert itself, not every server does): the copy that won is updated if it is older.
  const result = await model.updateOne(filter as never, set as never).exec();
  return result.matchedCount > 0;
}
