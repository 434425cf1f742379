/**
 * Reads by key that arrive close together (the concurrent handlers of one process) share one
 * `find` with `$in`: the read-side twin of the batched inserts, one command per batch instead of
 * one per read, which is what a read costs most in the driver and the server. A read is flushed
 * only after it was asked for, so it sees every write finished before it, as a single read does.
 */
import type { FilterQuery, Model } from 'mongoose';
import { Batcher } from '@aff/messaging';

export class BatchedLookup<V> {
  private readonly reads: Batcher<string, V | null>;

  /** `load` answers a batch of distinct keys with what it found; a key not in the map is absent. */
  constructor(load: (keys: string[]) => Promise<Map<string, V>>) {
    this.reads = new Batcher<string, V | null>({
      flush: async (keys) => {
        const found = await load([...new Set(keys)]);
        return keys.map((key) => found.get(key) ?? null);
      },
      maxItems: 100,
    });
  }

  get(key: string): Promise<V | null> {
    return this.reads.push(key);
  }
}

/**
 * Records of one collection by a field unique per merchant (`_id` included), read in batches:
 * one `find` with `$in` per merchant per batch.
 */
export class MerchantScopedLookup<V> {
  private readonly lookup: BatchedLookup<V>;

  constructor(model: Model<V>, field: string) {
    this.lookup = new BatchedLookup<V>((keys) => loadByField(model, field, keys));
  }

  get(merchantId: string, value: string): Promise<V | null> {
    return this.lookup.get(JSON.stringify([merchantId, value]));
  }
}

async function loadByField<V>(
  model: Model<V>,
  field: string,
  keys: string[],
): Promise<Map<string, V>> {
  const valuesByMerchant = new Map<string, string[]>();
  for (const key of keys) {
    const [merchantId, value] = JSON.parse(key) as [string, string];
    const values = valuesByMerchant.get(merchantId);
    if (values) values.push(value);
    else valuesByMerchant.set(merchantId, [value]);
  }
  const found = new Map<string, V>();
  await Promise.all(
    [...valuesByMerchant].map(async ([merchantId, values]) => {
      const records = await model
        .find({ merchant_id: merchantId, [field]: { $in: values } } as FilterQuery<V>)
        .lean<V[]>()
        .exec();
      for (const record of records) {
        const value = (record as Record<string, unknown>)[field];
        found.set(JSON.stringify([merchantId, value]), record as V);
      }
    }),
  );
  return found;
}
