/**
 * The stored `commission_stats`: one document per affiliate (`affiliate_commission_stats`,
 * `_id` the affiliate id) and one per merchant (`merchant_commission_stats`, `_id` the merchant
 * id, every affiliate added up), with the reservations not yet settled on them (`reserved`, by
 * reservation id, and how many: `reserved_count`; see stats-tally.ts).
 */
import { Schema, type Connection, type Model } from 'mongoose';
import type { StatKey, StatVector } from '../domain/commission-stats';

/** Which collection a counted record is in: `c` commissions, `s` sales. */
export type RecordKind = 'c' | 's';

/**
 * One write's part in a reservation: what it adds (`d`, in `STAT_KEYS` order, in currency
 * `cur`) when the record `r` carries the reservation's id in `stats_marks` (the write applied),
 * and nothing otherwise.
 */
export interface PendingRef {
  k: RecordKind;
  r: string;
  cur: string;
  d: StatVector;
}

export interface PendingEntry {
  at: Date;
  refs: PendingRef[];
}

export interface StatsDoc {
  _id: string;
  merchant_id: string;
  currencies?: Record<string, Partial<Record<StatKey, number>>>;
  /**
   * Reservations not yet settled, by id: a map, not an array, so one update can add some and
   * remove others (an array's `$push` and `$pull` conflict in one update).
   */
  reserved?: Record<string, PendingEntry>;
  reserved_count?: number;
}

export type StatsScope = 'affiliate' | 'merchant';
export type StatsModels = Record<StatsScope, Model<StatsDoc>>;

const COLLECTIONS: Record<StatsScope, [string, string]> = {
  affiliate: ['AffiliateCommissionStats', 'affiliate_commission_stats'],
  merchant: ['MerchantCommissionStats', 'merchant_commission_stats'],
};

function statsModel(connection: Connection, scope: StatsScope): Model<StatsDoc> {
  const [name, collection] = COLLECTIONS[scope];
  const existing = connection.models[name] as Model<StatsDoc> | undefined;
  if (existing) return existing;
  const schema = new Schema<StatsDoc>(
    {
      _id: { type: String, required: true },
      merchant_id: { type: String, required: true },
      currencies: { type: Schema.Types.Mixed },
      reserved: { type: Schema.Types.Mixed },
      reserved_count: { type: Number },
    },
    { versionKey: false, minimize: false },
  );
  // The sweep looks for documents with reservations (on MongoDB; the local server scans).
  schema.index({ reserved_count: 1 }, { sparse: true });
  return connection.model<StatsDoc>(name, schema, collection);
}

export function statsModels(connection: Connection): StatsModels {
  return {
    affiliate: statsModel(connection, 'affiliate'),
    merchant: statsModel(connection, 'merchant'),
  };
}
