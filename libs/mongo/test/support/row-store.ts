/** The mongo library's list and count tests over a real MongoDB-protocol server. */
import { Schema, type Connection, type Model } from 'mongoose';
import {
  MerchantCounts,
  connectMongo,
  merchantCountsModel,
  type NewestRow,
  type StoredPendingEvent,
} from '../../src';

export type Row = NewestRow & { pending_events: StoredPendingEvent[] };

export interface RowStore {
  mongo: Connection;
  /** A tenant's records in `rows`, each with its pending events. */
  model: Model<Row>;
  /** The merchants' counts in `row_counts`, keeping the newest ids. */
  counts: MerchantCounts;
}

/**
 * A database named `<name>_<time>`, opened before the file's tests and dropped after them, whose
 * counts keep the `newest` ids. The fields are set by that `beforeAll`, so read them inside tests
 * and hooks.
 */
export function rowStorePerFile(name: string, newest: number): RowStore {
  const rows = {} as RowStore;
  beforeAll(async () => {
    rows.mongo = await connectMongo(process.env.MONGO_URL!, `${name}_${Date.now()}`);
    rows.model = rows.mongo.model<Row>(
      'Row',
      new Schema<Row>(
        { _id: String, merchant_id: String, created_at: Date, pending_events: [] },
        { versionKey: false },
      ),
      'rows',
    );
    // Indexes built before the first write: on the local server an insert racing a new
    // collection's index build fails ("Unknown error: null").
    await rows.model.init();
    rows.counts = new MerchantCounts(merchantCountsModel(rows.mongo, 'row_counts'), newest);
  });
  afterAll(async () => {
    await rows.mongo.dropDatabase().catch(() => undefined);
    await rows.mongo.close();
  });
  return rows;
}
