/**
 * Visitors, leads and conversions per link, held in memory for the `link` a referral shows.
 * Counting them in the database for every referral shown (three counts per link) cost more than
 * the rest of a visit. Loaded with one aggregation at start (and after a reconnect), then moved
 * by the referral events every replica sees on plain NATS subscriptions.
 *
 * A snapshot and a stream of increments must not count one referral twice or miss it: the
 * subscription is open before the load (events published during the read are not lost), and an
 * event may be in the snapshot or not. So each load picks a cut time. The snapshot counts what
 * happened (the referral's `created_at`, `became_lead_at`, `became_conversion_at`) at or before
 * the cut; events count only what happened after it. What happened in the last `SETTLE_MS`
 * before the cut may still be on its way into the database while the snapshot is read, so that
 * slice is read again once `SETTLE_MS` have passed after the cut, and its new count replaces the
 * first.
 */
import type { EventEnvelope, ReferralView } from '@aff/contracts';
import { followEventTable, type NatsConnection, type Subscription } from '@aff/messaging';
import type { Logger } from '@aff/logging';
import type { Model } from 'mongoose';
import type { LinkCounts } from '../domain/records';
import type { ReferralDocument } from './referral.schema';

export type { LinkCounts };

/** Longer than a referral write takes from stamping its time to landing in the database. */
export const SETTLE_MS = 10_000;
const SEEN_LIMIT = 100_000;
const key = (merchantId: string, linkId: string): string => `${merchantId}\u0000${linkId}`;
const NONE: LinkCounts = { visitors: 0, leads: 0, conversions: 0 };

/** The counts of one load: the snapshot up to `cut`, plus the events after it. */
interface Generation {
  cut: number;
  counts: Map<string, LinkCounts>;
}

/** When each change happened, as the referral in its event says. */
const TIME_OF: Record<keyof LinkCounts, (referral: ReferralView) => string | null | undefined> = {
  visitors: (r) => r.created_at,
  leads: (r) => r.became_lead_at,
  conversions: (r) => r.became_conversion_at,
};

export class LinkCountsMemory {
  /** Before the first load everything counts (cut at the beginning of time). */
  private current: Generation = { cut: -Infinity, counts: new Map() };
  /** Loads reading their snapshot; events after their cut count there too. */
  private readonly loading = new Set<Generation>();
  /** Events already counted; a relay that publishes twice after a crash must not count twice. */
  private readonly seen = new Set<string>();
  /** The last `SEEN_LIMIT` ids, oldest at `next`: a ring, so forgetting the oldest is O(1). */
  private readonly seenRing: (string | undefined)[] = new Array<string | undefined>(SEEN_LIMIT);
  private next = 0;
  private log: Logger | undefined;

  constructor(
    private readonly referrals: Model<ReferralDocument>,
    private readonly settleMs = SETTLE_MS,
  ) {}

  async load(): Promise<void> {
    const cut = Date.now();
    const generation: Generation = { cut, counts: new Map() };
    const settled = new Date(cut - this.settleMs);
    this.loading.add(generation);
    let slice: Map<string, LinkCounts>;
    try {
      const [base, first] = await Promise.all([
        this.countBetween(new Date(0), settled),
        this.countBetween(settled, new Date(cut)),
      ]);
      slice = first;
      add(generation.counts, base, 1);
      add(generation.counts, slice, 1);
    } finally {
      this.loading.delete(generation);
    }
    this.current = generation;
    const timer = setTimeout(
      () => {
        void this.countBetween(settled, new Date(cut))
          .then((final) => {
            add(generation.counts, slice, -1);
            add(generation.counts, final, 1);
          })
          .catch((err: unknown) =>
            this.log?.warn({ err }, 'link counts: second read of the slice before the cut failed'),
          );
      },
      cut + this.settleMs - Date.now(),
    );
    timer.unref();
  }

  /** Per link, what happened in (`after`, `upTo`]. */
  private async countBetween(after: Date, upTo: Date): Promise<Map<string, LinkCounts>> {
    const within = (field: string) => ({
      $cond: [{ $and: [{ $gt: [field, after] }, { $lte: [field, upTo] }] }, 1, 0],
    });
    const rows = await this.referrals
      .aggregate<{ _id: { m: string; l: string }; v: number; le: number; c: number }>([
        { $match: { link_id: { $ne: null } } },
        {
          $group: {
            _id: { m: '$merchant_id', l: '$link_id' },
            v: { $sum: within('$created_at') },
            le: { $sum: within('$became_lead_at') },
            c: { $sum: within('$became_conversion_at') },
          },
        },
      ])
      .exec();
    const counts = new Map<string, LinkCounts>();
    for (const row of rows)
      counts.set(key(row._id.m, row._id.l), { visitors: row.v, leads: row.le, conversions: row.c });
    return counts;
  }

  get(merchantId: string, linkId: string): LinkCounts {
    return this.current.counts.get(key(merchantId, linkId)) ?? NONE;
  }

  /**
   * Counts a referral event once, by its id (a relay may publish twice after a crash), where it
   * happened after the cut (before it, the snapshot has it).
   */
  apply(event: EventEnvelope<ReferralView>, change: keyof LinkCounts): void {
    const referral = event.data;
    if (!referral.link || this.seen.has(event.id)) return;
    this.remember(event.id);
    // A time that cannot be read counts as after every cut: rather counted than lost.
    const at = Date.parse(TIME_OF[change](referral) ?? '');
    const k = key(event.merchant_id, referral.link.id);
    for (const generation of [this.current, ...this.loading]) {
      if (at <= generation.cut) continue;
      const counts = { ...(generation.counts.get(k) ?? NONE) };
      counts[change] += 1;
      generation.counts.set(k, counts);
    }
  }

  follow(nc: NatsConnection, log: Logger): Subscription[] {
    this.log = log;
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

/** Adds `sign` × each of `from`'s counts into `into`. */
function add(into: Map<string, LinkCounts>, from: Map<string, LinkCounts>, sign: 1 | -1): void {
  for (const [k, c] of from) {
    const was = into.get(k) ?? NONE;
    into.set(k, {
      visitors: was.visitors + sign * c.visitors,
      leads: was.leads + sign * c.leads,
      conversions: was.conversions + sign * c.conversions,
    });
  }
}
