/**
 * What tracking keeps about client addresses, as the gateway's keyed hashes (never raw):
 * the affiliates' portal sign-ins (30 days) and the 24-hour hit lists behind `ip_velocity`
 * (one document per merchant, affiliate and address hash). Both are pruned by the service's
 * retention job (docs/retention.md); the rules' windows are checked on read as well.
 */
import { Schema, type Connection } from 'mongoose';
import { MerchantScopedLookup, ScopedRepository, type RetentionRule } from '@aff/mongo';
import type { AddressFacts } from '../domain/fraud-check';
import {
  SIGN_IN_WINDOW_MS,
  VELOCITY_WINDOW_MS,
  hitNumber,
  slideHits,
  type AddressHit,
} from '../domain/fraud-rules';

export interface SignInDoc {
  _id: string;
  merchant_id: string;
  affiliate_id: string;
  address_hash: string;
  signed_in_at: Date;
}

export interface AddressHitsDoc {
  _id: string;
  merchant_id: string;
  affiliate_id: string;
  address_hash: string;
  hits: AddressHit[];
  /** Bumped by every write: the hit list is replaced only over the version it was read at. */
  version: number;
  updated_at: Date;
}

const signInSchema = new Schema<SignInDoc>(
  {
    _id: { type: String, required: true },
    merchant_id: { type: String, required: true },
    affiliate_id: { type: String, required: true },
    address_hash: { type: String, required: true },
    signed_in_at: { type: Date, required: true },
  },
  { versionKey: false },
);
signInSchema.index({ signed_in_at: 1 });

const hitsSchema = new Schema<AddressHitsDoc>(
  {
    _id: { type: String, required: true },
    merchant_id: { type: String, required: true },
    affiliate_id: { type: String, required: true },
    address_hash: { type: String, required: true },
    hits: { type: Schema.Types.Mixed, default: () => [] },
    version: { type: Number, required: true },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false, minimize: false },
);
hitsSchema.index({ updated_at: 1 });

export function addressFactModels(connection: Connection) {
  return {
    signIns: connection.model<SignInDoc>('PortalSignIn', signInSchema, 'portal_sign_ins'),
    hits: connection.model<AddressHitsDoc>('AddressHits', hitsSchema, 'address_hits'),
  };
}
type Models = ReturnType<typeof addressFactModels>;

const key = (merchantId: string, affiliateId: string, hash: string) =>
  `${merchantId}:${affiliateId}:${hash}`;
/** Concurrent leads of one affiliate and address: each retry re-reads the newer list. */
const ATTEMPTS = 20;

/** Both kinds are keyed by merchant, affiliate and address hash, and scoped by merchant too. */
export class AddressFactsRepository implements AddressFacts {
  private readonly signIns: ScopedRepository<SignInDoc>;
  private readonly hits: ScopedRepository<AddressHitsDoc>;
  /**
   * Every visit with a client address asks for a sign-in (self-referral by address): the
   * visits handled together share one `$in` read instead of a find each (bench: one database
   * read per visit before). Each read still leaves after it was asked for.
   */
  private readonly signInReads: MerchantScopedLookup<SignInDoc>;

  constructor(models: Models) {
    this.signIns = new ScopedRepository(models.signIns);
    this.hits = new ScopedRepository(models.hits);
    this.signInReads = new MerchantScopedLookup(models.signIns, '_id');
  }

  /** Keeps the latest sign-in per affiliate and address (an older event changes nothing). */
  async recordSignIn(
    merchantId: string,
    affiliateId: string,
    hash: string,
    at: Date,
  ): Promise<void> {
    // False when it exists with a newer (or the same) sign-in: the upsert's insert collided.
    await this.signIns.upsert(
      merchantId,
      { _id: key(merchantId, affiliateId, hash), signed_in_at: { $lt: at } },
      { $set: { affiliate_id: affiliateId, address_hash: hash, signed_in_at: at } },
    );
  }

  async lastSignIn(merchantId: string, affiliateId: string, hash: string): Promise<Date | null> {
    const doc = await this.signInReads.get(merchantId, key(merchantId, affiliateId, hash));
    return doc ? new Date(doc.signed_in_at) : null;
  }

  async countHit(
    merchantId: string,
    affiliateId: string,
    hash: string,
    referralId: string,
    now: Date,
  ): Promise<number> {
    const _id = key(merchantId, affiliateId, hash);
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const doc = await this.hits.findById(merchantId, _id);
      const before = doc?.hits ?? [];
      const known = hitNumber(before, referralId);
      if (known > 0) return known; // counted before (a redelivery, or lead then customer)
      const hits = slideHits(before, { referral_id: referralId, at: now }, now);
      if (await this.write(_id, doc, hits, { merchantId, affiliateId, hash }, now))
        return hitNumber(hits, referralId);
    }
    throw new Error(`address hits of ${affiliateId} kept changing; try again`);
  }

  /** False when another writer changed the list since it was read. */
  private async write(
    _id: string,
    doc: AddressHitsDoc | null,
    hits: AddressHit[],
    owner: { merchantId: string; affiliateId: string; hash: string },
    now: Date,
  ): Promise<boolean> {
    if (!doc) {
      return this.hits.insertIfAbsent({
        _id,
        merchant_id: owner.merchantId,
        affiliate_id: owner.affiliateId,
        address_hash: owner.hash,
        hits,
        version: 1,
        updated_at: now,
      });
    }
    const result = await this.hits.updateOne(
      owner.merchantId,
      { _id, version: doc.version },
      { $set: { hits, updated_at: now }, $inc: { version: 1 } },
    );
    return result.matched === 1;
  }

  get retention(): RetentionRule[] {
    return [
      { model: this.signIns.model, field: 'signed_in_at', keepMs: SIGN_IN_WINDOW_MS },
      { model: this.hits.model, field: 'updated_at', keepMs: VELOCITY_WINDOW_MS },
    ];
  }
}
