/**
 * The floor every durable write path is measured against: single-document inserts with the
 * same concurrency as the HTTP load, straight through the MongoDB driver, on the same server.
 */
import mongoose from 'mongoose';
import { randomUUID } from 'node:crypto';

export interface RawInsertFigures {
  insertsPerSecond: number;
  concurrency: number;
  seconds: number;
}

export async function measureRawInserts(
  mongoUrl: string,
  concurrency: number,
  durationSeconds: number,
): Promise<RawInsertFigures> {
  const connection = await mongoose
    .createConnection(mongoUrl, { dbName: 'bench_raw', maxPoolSize: concurrency * 2 })
    .asPromise();
  try {
    // A document shaped like a referral, so both sides write about as many bytes.
    const collection = connection.collection(`inserts_${Date.now()}`);
    const doc = () => ({
      _id: randomUUID() as never,
      merchant_id: randomUUID(),
      link_id: randomUUID(),
      affiliate_id: randomUUID(),
      visits: 1,
      conversion_state: 'visitor',
      created_at: new Date(),
      updated_at: new Date(),
      expires_at: new Date(),
      pending_events: [],
    });
    // Warm-up: the first inserts create the collection and fill connection pools.
    await Promise.all(Array.from({ length: concurrency }, () => collection.insertOne(doc())));
    let count = 0;
    const started = Date.now();
    const deadline = started + durationSeconds * 1000;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (Date.now() < deadline) {
          await collection.insertOne(doc());
          count++;
        }
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    return { insertsPerSecond: count / seconds, concurrency, seconds };
  } finally {
    await connection.close();
  }
}
