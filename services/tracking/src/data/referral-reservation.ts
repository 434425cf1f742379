/**
 * The pieces of a referral-count reservation (see referral-tallies.ts): what a reservation
 * holds per count document, the marks its writes carry, how it is settled, and the settle
 * update itself (shared with the sweep).
 */
import type { AnyBulkWriteOperation } from 'mongoose';
import type { Batcher } from '@aff/messaging';
import { scoped } from '@aff/mongo';
import type { CountedReferral } from '../domain/ports';
import type { LinkCounts } from '../domain/records';
import type {
  CountMarks,
  CountStep,
  PendingRef,
  TallyDoc,
  TallyTarget,
} from './referral-tally.schema';

export interface CountChange {
  referral: CountedReferral;
  delta: LinkCounts;
}

export interface DocKey {
  target: TallyTarget;
  merchantId: string;
  id: string;
}
export interface SettleItem extends DocKey {
  entryId: string;
  delta: LinkCounts;
}

export const ZERO: LinkCounts = { visitors: 0, leads: 0, conversions: 0 };

export function stepsOf(delta: LinkCounts): CountStep[] {
  const steps: CountStep[] = [];
  if (delta.visitors) steps.push('visitor');
  if (delta.leads) steps.push('lead');
  if (delta.conversions) steps.push('conversion');
  return steps;
}

/** The sum of the parts of `refs` whose write applied. */
export function sumOf(refs: PendingRef[], applied: (ref: PendingRef) => boolean): LinkCounts {
  const sum = { ...ZERO };
  for (const ref of refs.filter(applied)) {
    sum.visitors += ref.visitors;
    sum.leads += ref.leads;
    sum.conversions += ref.conversions;
  }
  return sum;
}

/** The count documents a referral's steps add to: its affiliate, link, coupon and merchant. */
export function targetsOf(referral: CountedReferral): [TallyTarget, string][] {
  const targets: [TallyTarget, string][] = [
    ['affiliate', referral.affiliate_id],
    ['merchant', referral.merchant_id],
  ];
  if (referral.link_id) targets.push(['link', referral.link_id]);
  if (referral.coupon_id) targets.push(['coupon', referral.coupon_id]);
  return targets;
}

/** The writes one reservation covers, and the count documents it is pending on. */
export class Reservation {
  constructor(
    readonly id: string,
    private readonly docs: { key: DocKey; refs: PendingRef[] }[],
    private readonly settles: Batcher<SettleItem>,
  ) {}

  /** What a write of `delta`'s steps stores in its referral's `count_marks`. */
  marks(delta: LinkCounts): CountMarks {
    return Object.fromEntries(stepsOf(delta).map((step) => [step, this.id]));
  }

  /** Adds what applied (`applied(referral id)`) and pulls the reservation; then publishes. */
  async settle(applied: (referralId: string) => boolean): Promise<void> {
    await Promise.all(
      this.docs.map(({ key, refs }) =>
        this.settles.push({
          ...key,
          entryId: this.id,
          delta: sumOf(refs, (ref) => applied(ref.r)),
        }),
      ),
    );
  }
}

export function settleOp(
  key: Pick<DocKey, 'merchantId' | 'id'>,
  entryIds: string[],
  delta: LinkCounts,
  settledAt: Date,
): AnyBulkWriteOperation<TallyDoc> {
  return {
    updateOne: {
      filter: scoped<TallyDoc>(key.merchantId, { _id: key.id, 'pending.id': { $all: entryIds } }),
      update: {
        $inc: { ...delta },
        $pull: { pending: { id: { $in: entryIds } } },
        $set: { settled_at: settledAt },
      },
    },
  };
}

export function pick(counts: Partial<LinkCounts>): LinkCounts {
  return {
    visitors: counts.visitors ?? 0,
    leads: counts.leads ?? 0,
    conversions: counts.conversions ?? 0,
  };
}

export function add(a: LinkCounts, b: LinkCounts): LinkCounts {
  return {
    visitors: a.visitors + b.visitors,
    leads: a.leads + b.leads,
    conversions: a.conversions + b.conversions,
  };
}
