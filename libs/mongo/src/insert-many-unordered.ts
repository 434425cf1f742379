/** One unordered `insertMany` of complete records, through the driver (no mongoose casting). */
import type { Model } from 'mongoose';
import { failuresByIndex } from './bulk-failures';
import { isDuplicateKeyError } from './connection';

/** One unordered `insertMany`; a failed document (a duplicate key) fails its caller alone. */
export async function insertManyUnordered<T>(
  model: Model<T>,
  docs: T[],
): Promise<(undefined | Error)[]> {
  if (docs.length === 1) {
    const failed = await model.collection.insertOne(docs[0] as never).then(
      () => undefined,
      (error: unknown) => (isDuplicateKeyError(error) ? (error as Error) : Promise.reject(error)),
    );
    return [failed];
  }
  try {
    await model.collection.insertMany(docs as never[], { ordered: false });
    return docs.map(() => undefined);
  } catch (error) {
    return failuresByIndex(error, docs.length);
  }
}
