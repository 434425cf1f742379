/**
 * Reads by key that arrive close together (the concurrent handlers of one process) share one
 * `find` with `$in`: the read-side twin of the batched inserts, one command per batch instead of
 * one per read, which is what a read costs most in the driver and the server. A read is flushed
 * only after it was asked for, so it sees every write finished before it, as a single read does.
 */
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
