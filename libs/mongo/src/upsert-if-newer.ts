/**
 * Writes a read-model record from an event unless the stored copy is newer: events of one
 * record can arrive late, twice or out of order, and replaying any of them must change nothing.
 * One conditional upsert does it, and the upserts of events handled at once share one unordered
 * `bulkWrite` per collection (the read models apply every commission, affiliate and campaign
 * event they see, so a round trip each was most of this service's work per commission).
 */
import type { FilterQuery, Model, UpdateQuery } from 'mongoose';
import { ConditionalUpserts } from './conditional-upserts';

export interface Versioned {
  _id: string;
  merchant_id: string;
  updated_at: Date;
}

const upserts = new ConditionalUpserts();

/**
 * `fields` are what the event says; `onInsert` are set only when the record is new (fields the
 * events never own). Returns whether the event was applied (false: the stored copy is newer).
 *
 * The record goes to the driver as it is, without mongoose casting: callers pass every field of
 * the schema with its stored type (dates as `Date`), so an inserted copy has what the schema's
 * defaults would have given it.
 */
export async function upsertIfNewer<T>(
  model: Model<T>,
  record: Versioned,
  onInsert: Record<string, unknown> = {},
): Promise<boolean> {
  const { _id, merchant_id, updated_at, ...fields } = record;
  const filter = { _id, merchant_id, updated_at: { $lte: updated_at } };
  const set = { $set: { ...fields, updated_at } };
  const update = Object.keys(onInsert).length > 0 ? { ...set, $setOnInsert: onInsert } : set;
  // Matched (the stored copy is older or the same) or inserted (there was none): applied.
  // A stored newer copy fails the filter, so the upsert's insert collides on `_id`.
  if (await upserts.upsert(model, filter, update)) return true;
  // The collision may also be a concurrent first insert of this record (MongoDB retries such an
  // upsert itself, not every server does): the copy that won is updated if it is older.
  const result = await model.updateOne(filter as FilterQuery<T>, set as UpdateQuery<T>, {
    // As the upsert above: the record as it is, without mongoose casting.
    strict: false,
  });
  return result.matchedCount > 0;
}
