/**
 * Facts this service keeps from the commission service's events, only to derive the
 * affiliates' `commission_stats`. Each is keyed by the other service's record id, so a replayed
 * event rewrites the same fact instead of counting twice. (Referral counts come absolute from
 * tracking instead: no facts. The old `referral_facts` and `coupon_referral_facts` collections
 * are no longer read: docs/decisions.md, "Referral counts".)
 */
import { Schema, type Connection, type Model } from 'mongoose';
import type { VersionedFactKind } from '../domain/ports';
import type { CommissionFact, SaleFact } from '../domain/records';

export type { CommissionFact, SaleFact };

/** Commission and sale facts as stored: one shape, the other kind's fields absent. */
export type StoredFact = Omit<CommissionFact, 'amount' | 'state'> &
  Partial<Pick<CommissionFact, 'amount' | 'state'>> &
  Partial<Pick<SaleFact, 'gross_cents' | 'net_cents'>>;

function factSchema(fields: Record<string, typeof Number | typeof String>) {
  const schema = new Schema<StoredFact>(
    {
      _id: String,
      merchant_id: String,
      affiliate_id: String,
      currency: String,
      ...fields,
      updated_at: String,
      pending_since: Date,
    },
    { versionKey: false },
  );
  // The local server (mongo-java-server) uses an index only for a filter with exactly its
  // fields; these make the conditional writes and the mark look-ups index reads (see
  // derived-counters.ts). On MongoDB they are redundant with `_id` and cheap.
  schema.index({ _id: 1, pending_since: 1 }, { unique: true });
  schema.index({ _id: 1, merchant_id: 1, updated_at: 1 }, { unique: true });
  schema.index({ merchant_id: 1, affiliate_id: 1 });
  return schema;
}

export type FactModels = Record<VersionedFactKind, Model<StoredFact>>;

export function factModels(connection: Connection): FactModels {
  return {
    commissions: connection.model<StoredFact>(
      'CommissionFact',
      factSchema({ amount: Number, state: String }),
      'commission_facts',
    ),
    sales: connection.model<StoredFact>(
      'SaleFact',
      factSchema({ gross_cents: Number, net_cents: Number }),
      'sale_facts',
    ),
  };
}
