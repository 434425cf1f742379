/**
 * Brings referral history written before `merchant_referral_counts` existed into the merchant's
 * document (the console overview's visitors, leads and conversions), automatically and once.
 *
 * Why the difference is the history: every reservation since that document exists covers the
 * merchant's document and each affiliate's (targetsOf in referral-reservation.ts), with the same
 * referrals and the same "did it apply" rule on both, so once settled it adds to the merchant's
 * document exactly what it adds to its affiliates' together. What the affiliates' documents
 * (`affiliate_counts`) hold beyond the merchant's is what was counted before: the history.
 *
 * Exact under live traffic without a transaction: the merchant document is read first, then
 * its affiliates' documents (a merchant with any reservation pending on one of them is left for
 * later), then the difference is added by an update conditional on the merchant document still
 * having the counts read and no reservation pending. A reservation that settled on an affiliate
 * after the first read was reserved on the merchant's document before that settle, so it is
 * either still pending there or has changed its counts (counts only grow): the update misses,
 * and the merchant is tried again. One settled before the first read and not yet on an
 * affiliate would show as pending there. A merchant without the document gets it inserted
 * (unique `_id`: a reservation creating it first makes the insert miss, tried again).
 *
 * Idempotent: once added, the difference is zero and nothing is written. A merchant whose
 * document holds more than its affiliates' (documents set by hand) is left alone. It runs at
 * start-up and on an interval; once a pass finds nothing to do it records that
 * (`referral_counts_backfill`), and an hour later passes stop (each reads every affiliate count
 * document). The hour covers a rolling upgrade: old replicas count affiliates, not merchants.
 * docs/decisions.md, "The console overview's figures".
 */
import type { Collection } from 'mongoose';
import { ScopedRepository } from '@aff/mongo';
import type { LinkCounts } from '../domain/records';
import { ZERO, add, pick } from './referral-reservation';
import type { TallyDoc, TallyModels } from './referral-tally.schema';

export const MERCHANT_BACKFILL_EVERY_MS = 300_000;
/** After the first pass that found nothing to do, passes go on this long, then stop. */
const KEEP_CHECKING_MS = 3_600_000;
/** A busy merchant (a reservation in flight) is tried again this many times in a pass. */
const TRIES = 5;
const MARKER_ID = 'merchant_referral_counts';

interface Marker {
  _id: string;
  done_at?: Date;
}

export interface BackfillPass {
  /** Merchants whose document received history. */
  raised: number;
  /** Merchants left for the next pass (reservations in flight every time). */
  busy: number;
  /** Merchants whose document counts more than their affiliates' (left alone). */
  ahead: number;
}

type Outcome = 'raised' | 'none' | 'busy' | 'ahead';
const FIELDS = { merchant_id: 1, visitors: 1, leads: 1, conversions: 1, 'pending.id': 1 };

const isPending = (doc: Pick<TallyDoc, 'pending'>) => (doc.pending ?? []).length > 0;

export class MerchantCountsBackfill {
  private readonly merchants: ScopedRepository<TallyDoc>;

  constructor(
    private readonly models: TallyModels,
    private readonly now: () => Date = () => new Date(),
    private readonly pauseMs = 50,
  ) {
    this.merchants = new ScopedRepository(models.merchant);
  }

  async run(): Promise<BackfillPass> {
    const pass: BackfillPass = { raised: 0, busy: 0, ahead: 0 };
    const marker = await this.markers().findOne({ _id: MARKER_ID });
    const doneAt = marker?.done_at;
    if (doneAt && this.now().getTime() - new Date(doneAt).getTime() > KEEP_CHECKING_MS) return pass;
    // The merchants' documents first, then every affiliate's: the order the proof above needs.
    const merchantDocs = new Map(
      (await this.models.merchant.find({}, FIELDS).lean<TallyDoc[]>().exec()).map((d) => [
        d._id,
        d,
      ]),
    );
    const sums = new Map<string, { sum: LinkCounts; busy: boolean }>();
    for await (const doc of this.models.affiliate.find({}, FIELDS).lean<TallyDoc>().cursor()) {
      const entry = sums.get(doc.merchant_id) ?? { sum: { ...ZERO }, busy: false };
      entry.sum = add(entry.sum, pick(doc));
      entry.busy ||= isPending(doc);
      sums.set(doc.merchant_id, entry);
    }
    for (const [merchantId, { sum, busy }] of sums) {
      let outcome: Outcome = busy
        ? 'busy'
        : await this.raise(merchantId, merchantDocs.get(merchantId), sum);
      for (let i = 1; outcome === 'busy' && i < TRIES; i++) {
        await new Promise((resolve) => setTimeout(resolve, this.pauseMs));
        outcome = await this.retry(merchantId);
      }
      if (outcome !== 'none') pass[outcome]++;
    }
    if (pass.raised === 0 && pass.busy === 0 && !doneAt)
      await this.markers().updateOne(
        { _id: MARKER_ID },
        { $set: { done_at: this.now() } },
        { upsert: true },
      );
    return pass;
  }

  /** One merchant read again on its own: its document, then its affiliates'. */
  private async retry(merchantId: string): Promise<Outcome> {
    const mine = await this.merchants.findById(merchantId, merchantId);
    const docs = await this.models.affiliate
      .find({ merchant_id: merchantId }, FIELDS)
      .lean<TallyDoc[]>()
      .exec();
    if (docs.some(isPending)) return 'busy';
    return this.raise(merchantId, mine ?? undefined, docs.map(pick).reduce(add, { ...ZERO }));
  }

  /** Adds what the affiliates count beyond `read` (the merchant document as read before them). */
  private async raise(
    merchantId: string,
    read: TallyDoc | undefined,
    sum: LinkCounts,
  ): Promise<Outcome> {
    const counted = pick(read ?? {});
    const diff: LinkCounts = {
      visitors: sum.visitors - counted.visitors,
      leads: sum.leads - counted.leads,
      conversions: sum.conversions - counted.conversions,
    };
    const values = Object.values(diff);
    if (values.some((v) => v < 0)) return 'ahead';
    if (values.every((v) => v === 0)) return 'none';
    if (!read) {
      const inserted = await this.merchants.insertIfAbsent({
        _id: merchantId,
        merchant_id: merchantId,
        ...sum,
        pending: [],
      });
      return inserted ? 'raised' : 'busy';
    }
    // A count never written is absent, not 0, on a document a reservation created.
    const same = Object.fromEntries(
      Object.entries(counted).map(([k, v]) => [k, v === 0 ? { $in: [0, null] } : v]),
    );
    const { modified } = await this.merchants.updateOne(
      merchantId,
      {
        _id: merchantId,
        ...same,
        $or: [{ pending: { $exists: false } }, { pending: { $size: 0 } }],
      },
      { $inc: { ...diff } },
    );
    return modified === 1 ? 'raised' : 'busy';
  }

  private markers(): Collection<Marker> {
    return this.models.merchant.db.collection<Marker>('referral_counts_backfill');
  }
}
