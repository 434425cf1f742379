/**
 * The payout service's records as the use cases see them: plain objects, read and written
 * through the ports (ports.ts). The data layer's schemas are declared from these shapes.
 */
import type { AffiliateView, CampaignView, CommissionState, PayoutState } from '@aff/contracts';
import type { EventContext } from '@aff/messaging';

/**
 * The payout as lists and reads show it. It is derived from facts (claims and payment steps)
 * and rewritten whole by `PayoutRefresher`: FerretDB applies conditional updates without
 * isolation, so nothing here is a lock or a guard, only a convergent cache.
 */
export interface PayoutRecord {
  _id: string;
  merchant_id: string;
  affiliate_id: string;
  currency: string;
  /**
   * Payouts of one affiliate and currency form a series; only the newest can be open. A unique
   * `series_key` (`<affiliate>:<currency>:<series>`) makes racing runs agree on it.
   */
  series: number;
  series_key: string;
  state: PayoutState;
  amount: number;
  commission_ids: string[];
  /** 0 until the payout holds a commission: such a payout is not shown. */
  commission_count: number;
  /** Of the derived figures; a change is what `payout.updated` announces. */
  fingerprint: string;
  paid_at: Date | null;
  paid_by_id: string | null;
  created_at: Date;
  updated_at: Date;
  /**
   * The open export that holds the payout (domain/exports): set and cleared only by guarded
   * conditional updates (`export_id: null` to take it), so two exports never share a payout.
   * Absent on payouts made before exports existed, which reads as null / 0.
   */
  export_id?: string | null;
  /** How many times an export took the payout (a part of its fingerprint once non-zero). */
  export_count?: number;
  /** When an export last took or released it. */
  export_changed_at?: Date | null;
}

/** The export hold of a payout, as the derivation reads it. */
/**
 * `export_id` of a payout taken by a direct `pay` rather than an export: never an export's id
 * (those are UUIDs), so an export's conditional take (`export_id: null`) cannot match it.
 */
export const PAY_HOLD = 'pay';

export type PayoutHold = Required<
  Pick<PayoutRecord, 'export_id' | 'export_count' | 'export_changed_at'>
>;

/** What a refresh derives and writes. */
export type DerivedPayout = Pick<
  PayoutRecord,
  | 'state'
  | 'amount'
  | 'commission_ids'
  | 'commission_count'
  | 'fingerprint'
  | 'paid_at'
  | 'paid_by_id'
  | 'created_at'
  | 'updated_at'
>;

/**
 * A claim: which payout a commission went into. Insert-only under a unique id per commission
 * and epoch, so two runs can never both claim a commission. A claim that lost a race to a
 * payment is superseded by a claim of the next epoch, never moved or deleted.
 */
export interface ClaimRecord {
  _id: string;
  merchant_id: string;
  commission_id: string;
  epoch: number;
  payout_id: string;
  created_at: Date;
}

/** Read model of the commission service's commissions, built from its events. */
export interface CommissionRecord {
  _id: string;
  merchant_id: string;
  affiliate_id: string;
  campaign_id: string | null;
  amount: number;
  currency: string;
  state: CommissionState;
  processor_account_id: string | null;
  due_at: Date;
  paid_at: Date | null;
  voided_at: Date | null;
  /** Held for a review of its referral: never bundled (the commission service keeps it pending too). */
  held?: boolean;
  created_at: Date;
  /** The commission's own `updated_at`: an event older than the stored one is ignored. */
  updated_at: Date;
  /**
   * Set once a payout lists it: a cache that keeps generation runs from looking at commissions
   * already bundled. False again (a concurrent event write may reset it) only costs a look-up;
   * the claims decide.
   */
  listed: boolean;
}

/**
 * The steps of paying a payout, each inserted once (unique per payout and step), which is what
 * makes them happen once under any race on FerretDB:
 * - `requested`: the pay call won (a second one collides: 422). Also the durable job.
 * - `recorded`: the commissions and amount that were paid, read after `requested` existed.
 * - `completed`: the queued work finished; who paid.
 */
export type PaymentStepName = 'requested' | 'recorded' | 'completed';

export interface PaymentStepRecord {
  _id: string;
  merchant_id: string;
  payout_id: string;
  step: PaymentStepName;
  created_at: Date;
  /** requested: when the payout and its commissions count as paid. */
  paid_at: Date | null;
  /** requested: the API secret that asked; completed: the same, as `paid_by_id`. */
  paid_by_id: string | null;
  /** requested: trace and request of the pay call, continued by the queued work. */
  context: EventContext | null;
  /** requested: true until the queued work is done (what the sweep looks for). */
  unfinished: boolean;
  /** recorded: what was paid. */
  commission_ids: string[];
  amount: number | null;
}

export interface PaymentSteps {
  requested?: PaymentStepRecord;
  recorded?: PaymentStepRecord;
  completed?: PaymentStepRecord;
}

export type StepFields = Partial<
  Pick<PaymentStepRecord, 'paid_at' | 'paid_by_id' | 'context' | 'commission_ids' | 'amount'>
>;

/** Latest copy of another service's record (from its events): newest wins. */
export interface SnapshotRecord<V> {
  _id: string;
  merchant_id: string;
  view: V;
  /** The record's own `updated_at`: an older copy never replaces a newer one. */
  updated_at: Date;
}

/** An affiliate as a payout embeds it: without `links`, `commission_stats` and `campaign`. */
export type AffiliateSnapshot = SnapshotRecord<
  Omit<AffiliateView, 'campaign' | 'links' | 'commission_stats'>
> & {
  campaign_id: string | null;
};
export type CampaignSnapshot = SnapshotRecord<CampaignView>;
