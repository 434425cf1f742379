/**
 * Visitors, leads and conversions per link, held in memory for the `link` a referral shows.
 * Counting them in the database for every referral shown (three counts per link) cost more than
 * the rest of a visit. Loaded with one aggregation at start (and after a reconnect), then moved
 * by the referral events every replica sees on plain NATS subscriptions.
 */
import type { EventEnvelope, ReferralView } from '@aff/contracts';
import { followEventTable, type NatsConnection, type Subscription } from '@aff/messaging';
import type { Logger } from '@aff/logging';
import type { Model } from 'mongoose';
import type { LinkCounts } from '../domain/records';
import type { ReferralDocument } from './referral.schema';

export type { LinkCounts };

const SEEN_LIMIT = 100_000;
const key = (merchantId: string, linkId: string): string => `${merchantId}\u0000${linkId}`;

export class LinkCountsMemory {
  private counts = new Map<string, LinkCounts>();
  /** Events already counted; a relay that publishes twice after a crash must not count twice. */
  private readonly seen = new Set<string>();
  /** The last `SEEN_LIMIT` ids, oldest at `next`: a ring, so forgetting the oldest is O(1). */
  private readonly seenRing: (string | undefined)[] = new Array<string | undefined>(SEEN_LIMIT);
  private next = 0;

  constructor(private readonly referrals: Model<ReferralDocument>) {}

  async load(): Promise<void> {
    const rows = await this.referrals
      .aggregate<{ _id: { m: string; l: string }; v: number; le: number; c: number }>([
        { $match: { link_id: { $ne: null } } },
        {
          $group: {
            _id: { m: '$merchant_id', l: '$link_id' },
            v: { $sum: 1 },
            le: { $sum: { $cond: [{ $gt: ['$became_lead_at', null] }, 1, 0] } },
            c: { $sum: { $cond: [{ $gt: ['$became_conversion_at', null] }, 1, 0] } },
          },
        },
      ])
      .exec();
    const fresh = new Map<string, LinkCounts>();
    for (const row of rows)
      fresh.set(key(row._id.m, row._id.l), { visitors: row.v, leads: row.le, conversions: row.c });
    this.counts = fresh;
  }

  get(merchantId: string, linkId: string): LinkCounts {
    return this.counts.get(key(merchantId, linkId)) ?? { visitors: 0, leads: 0, conversions: 0 };
  }

  /** Counts a referral event once, by its id (a relay may publish twice after a crash). */
  apply(event: EventEnvelope<ReferralView>, change: keyof LinkCounts): void {
    const referral = event.data;
    if (!referral.link || this.seen.has(event.id)) return;
    this.remember(event.id);
    const counts = { ...this.get(event.merchant_id, referral.link.id) };
    counts[change] += 1;
    this.counts.set(key(event.merchant_id, referral.link.id), counts);
  }

  follow(nc: NatsConnection, log: Logger): Subscription[] {
    return followEventTable(nc, {
      on: {
        'referral.created': (_data, event) => this.apply(event, 'visitors'),
        // A coupon referral is created as a lead in one write; its `referral.lead` follows.
        'referral.lead': (_data, event) => this.apply(event, 'leads'),
        'referral.converted': (_data, event) => this.apply(event, 'conversions'),
      },
      reload: () => this.load(),
      log,
    });
  }

  private remember(eventId: string): void {
    const oldest = this.seenRing[this.next];
    if (oldest !== undefined) this.seen.delete(oldest);
    this.seen.add(eventId);
    this.seenRing[this.next] = eventId;
    this.next = (this.next + 1) % SEEN_LIMIT;
  }
}
