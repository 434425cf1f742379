/**
 * The floor every durable write path is measured against: single-document inserts with the
 * same concurrency as the HTTP load, straight through the MongoDB driver, on the same server.
 *
 * The server is warmed first, into a collection of its own that is dropped afterwards, and the
 * baseline is then taken on a fresh collection. Two effects of the local database server (a JVM
 * storing into H2) make both steps matter, measured with 20 writers in 5 s windows:
 *  - cold, it inserts about half as fast as once its code is compiled: 3,040–3,275/s in the
 *    first window of a fresh server, 5,500–6,700/s on a fresh collection after 10 s of inserts;
 *  - a collection slows down as it grows: 5,565 → 4,666 → 3,741/s over three windows into one.
 * Every path the bench measures after the baseline runs on the warm server and writes into
 * collections that start empty, so a baseline taken cold, or on a grown collection, would
 * overstate every ratio.
 */
import mongoose from 'mongoose';
import { randomUUID } from 'node:crypto';

export interface RawInsertFigures {
  insertsPerSecond: number;
  concurrency: number;
  seconds: number;
  /** The untimed warm-up, into a throwaway collection: the rate of each window. */
  warmup: { windowSeconds: number; insertsPerSecond: number[] };
}

const WARMUP_WINDOW_SECONDS = 5;
const WARMUP_WINDOWS = 3;

export async function measureRawInserts(
  mongoUrl: string,
  concurrency: number,
  durationSeconds: number,
): Promise<RawInsertFigures> {
  const connection = await mongoose
    .createConnection(mongoUrl, { dbName: 'bench_raw', maxPoolSize: concurrency * 2 })
    .asPromise();
  try {
    const warmupCollection = connection.collection(`warmup_${Date.now()}`);
    const warmup: number[] = [];
    for (let window = 0; window < WARMUP_WINDOWS; window++) {
      const rate = await insertFor(warmupCollection, concurrency, WARMUP_WINDOW_SECONDS);
      warmup.push(Math.round(rate));
    }
    await warmupCollection.drop();
    const collection = connection.collection(`inserts_${Date.now()}`);
    const started = Date.now();
    const insertsPerSecond = await insertFor(collection, concurrency, durationSeconds);
    return {
      insertsPerSecond,
      concurrency,
      seconds: (Date.now() - started) / 1000,
      warmup: { windowSeconds: WARMUP_WINDOW_SECONDS, insertsPerSecond: warmup },
    };
  } finally {
    await connection.close();
  }
}

/** Inserts from `concurrency` writers for `seconds`; the rate achieved. */
async function insertFor(
  collection: mongoose.mongo.Collection,
  concurrency: number,
  seconds: number,
): Promise<number> {
  let count = 0;
  const started = Date.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < deadline) {
        await collection.insertOne(referralShaped());
        count++;
      }
    }),
  );
  return count / ((Date.now() - started) / 1000);
}

/**
 * A document shaped like a referral, so the baseline, the visit skeleton and the visits write
 * about as many bytes.
 */
export function referralShaped() {
  return {
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
  };
}
