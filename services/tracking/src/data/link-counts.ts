/**
 * Visitors, leads and conversions per link, stored: one document per link in `link_counts`,
 * raised by `$inc` right after the referral writes that change them (an insert batch raises
 * each of its links once, in the same flush as its `insertMany`; a step to lead or conversion
 * raises its link after its conditional write), and read by `_id` when a referral is shown
 * (concurrent reads share one `$in`). Nothing is read at start, and no referral is read to
 * count: before, an aggregation over every referral ran at start and after each reconnect, so
 * start-up grew with history (issue 33).
 *
 * As with the merchants' record counters (docs/decisions.md, "Counts and newest-first lists"),
 * a crash between a write and its `$inc` leaves the link's count short by that write; the
 * counters merchants rely on (the affiliate service's link and affiliate counters, from facts
 * with a repair sweep) are exact regardless.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import { Batcher } from '@aff/messaging';
import { MerchantScopedLookup, mergeIncrements } from '@aff/mongo';
import type { LinkCountsReader } from '../domain/ports';
import type { LinkCounts, ReferralRecord } from '../domain/records';

export type { LinkCounts };

export interface LinkCountDoc extends LinkCounts {
  /** The link's id. */
  _id: string;
  merchant_id: string;
}

interface Increment {
  merchantId: string;
  linkId: string;
  delta: Partial<LinkCounts>;
}

const NONE: LinkCounts = { visitors: 0, leads: 0, conversions: 0 };

export function linkCountsModel(connection: Connection): Model<LinkCountDoc> {
  return (
    (connection.models.LinkCount as Model<LinkCountDoc> | undefined) ??
    connection.model<LinkCountDoc>(
      'LinkCount',
      new Schema<LinkCountDoc>(
        {
          _id: { type: String, required: true },
          merchant_id: { type: String, required: true },
          visitors: { type: Number, default: 0 },
          leads: { type: Number, default: 0 },
          conversions: { type: Number, default: 0 },
        },
        { versionKey: false },
      ),
      'link_counts',
    )
  );
}

/** What a new referral adds to its link's counts (a coupon referral may start as a lead). */
export function countsOfNew(record: ReferralRecord): Partial<LinkCounts> {
  return {
    visitors: 1,
    ...(record.became_lead_at ? { leads: 1 } : {}),
    ...(record.became_conversion_at ? { conversions: 1 } : {}),
  };
}

export class StoredLinkCounts implements LinkCountsReader {
  private readonly reads: MerchantScopedLookup<LinkCountDoc>;
  /** Increments arriving together share one unordered `bulkWrite` of upserts. */
  private readonly increments: Batcher<Increment>;

  /** `model`: `linkCountsModel`, declared with the service's models. */
  constructor(readonly model: Model<LinkCountDoc>) {
    this.reads = new MerchantScopedLookup(model, '_id');
    this.increments = new Batcher<Increment>({
      maxItems: 500,
      flush: async (items) => {
        const merged = mergeIncrements(
          items.map((i) => ({
            filter: { _id: i.linkId, merchant_id: i.merchantId },
            update: { $inc: i.delta },
          })),
        );
        await model.collection.bulkWrite(
          merged.map((m) => ({
            updateOne: { filter: m.filter, update: m.update, upsert: true },
          })) as never,
          { ordered: false },
        );
        return items.map(() => undefined);
      },
    });
  }

  async get(merchantId: string, linkId: string): Promise<LinkCounts> {
    const doc = await this.reads.get(merchantId, linkId);
    if (!doc) return NONE;
    return {
      visitors: doc.visitors ?? 0,
      leads: doc.leads ?? 0,
      conversions: doc.conversions ?? 0,
    };
  }

  /** Adds `delta` to one link's counts (batched with other increments). */
  async add(merchantId: string, linkId: string, delta: Partial<LinkCounts>): Promise<void> {
    const nonZero = Object.fromEntries(Object.entries(delta).filter(([, n]) => n));
    if (Object.keys(nonZero).length === 0) return;
    await this.increments.push({ merchantId, linkId, delta: nonZero });
  }

  /** Counts a batch of inserted referrals: one increment per link. */
  async added(inserted: ReferralRecord[]): Promise<void> {
    await Promise.all(
      inserted
        .filter((r) => r.link_id)
        .map((r) => this.add(r.merchant_id, r.link_id!, countsOfNew(r))),
    );
  }
}
