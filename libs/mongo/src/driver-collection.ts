/**
 * A model's collection typed by its record, for writes that go to the driver without mongoose's
 * casting (inserts of complete records, bulk writes). `model.collection` is typed for the
 * driver's default documents, whose `_id` is an `ObjectId`, so records with string ids would
 * need a cast; this is the same collection object, typed as `T`.
 */
import type { Collection, Model } from 'mongoose';

export function driverCollection<T extends { _id: string }>(model: Model<T>): Collection<T> {
  return model.db.collection<T>(model.collection.collectionName);
}
