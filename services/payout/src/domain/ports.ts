/**
 * What the use cases need from the outside world, so they stay free of I/O details. The stores
 * are implemented in data/ over MongoDB and take and return plain records (records.ts); the
 * payout store relays the events it logs itself, after its write.
 */
import type { Page } from '@aff/api';
import type { EventEnvelope, PayoutState } from '@aff/contracts';
import type { EventContext } from '@aff/messaging';
import type {
  AffiliateSnapshot,
  CampaignSnapshot,
  ClaimRecord,
  CommissionRecord,
  DerivedPayout,
  PaymentStepRecord,
  PaymentSteps,
  PayoutRecord,
  SnapshotRecord,
  StepFields,
} from './records';

/** The shared repository vocabulary (libs/api), re-exported for this domain's ports. */
export type { Page };

/** Who is asking: the tenant, and the trace/request context events should carry. */
/** The one call context of every service (libs/messaging). */
export type { CallContext } from '@aff/messaging';

/** Where a payment goes once it is recorded as paid (in-process queue, see jobs/). */
export interface PaymentQueue {
  enqueue(merchantId: string, payoutId: string): void;
}

export interface PayoutFilters {
  affiliate_id?: string;
  states?: PayoutState[];
}

/** Payouts of a merchant. Only a payout that holds a commission is visible. */
export interface PayoutTotalRow {
  currency: string;
  state: PayoutState;
  count: number;
  amount: number;
}

export interface PayoutStore {
  findById(merchantId: string, id: string): Promise<PayoutRecord | null>;
  findVisible(merchantId: string, id: string): Promise<PayoutRecord | null>;
  /** Newest first. */
  findVisibleByIds(merchantId: string, ids: string[]): Promise<PayoutRecord[]>;
  /** Visible payouts, newest first. */
  page(
    merchantId: string,
    filters: PayoutFilters,
    skip: number,
    limit: number,
  ): Promise<Page<PayoutRecord>>;
  /** Unpaid visible payouts (pending, due, processing) counted and summed per currency and state. */
  totals(merchantId: string): Promise<PayoutTotalRow[]>;
  /** The newest payout of an affiliate in a currency (the only one that can be open). */
  latestInSeries(
    merchantId: string,
    affiliateId: string,
    currency: string,
  ): Promise<PayoutRecord | null>;
  /** A new, empty (not yet shown) payout as number `series`; null when a racing run made it. */
  createInSeries(
    merchantId: string,
    affiliateId: string,
    currency: string,
    series: number,
  ): Promise<PayoutRecord | null>;
  /**
   * A refresh's write: logs `events` (each under its deterministic id; a copy of one logged
   * before is dropped), then writes `derived` unless it is null (nothing changed), then relays
   * the events it logged. Logged before the write, so a crash in between re-plans the same
   * events; what was logged and not relayed is relayed by the outbox sweep.
   */
  saveRefresh(
    merchantId: string,
    payoutId: string,
    derived: DerivedPayout | null,
    events: EventEnvelope[],
    context: EventContext,
  ): Promise<void>;
}

/** Claims of commissions by payouts. */
export interface ClaimStore {
  /** The claim that counts for a commission: its newest epoch. */
  current(merchantId: string, commissionId: string): Promise<ClaimRecord | null>;
  /** False when that epoch was claimed already (by another run, maybe for the same payout). */
  insert(
    merchantId: string,
    commissionId: string,
    epoch: number,
    payoutId: string,
  ): Promise<boolean>;
  /** Every claim made for a payout, oldest first. */
  forPayout(merchantId: string, payoutId: string): Promise<ClaimRecord[]>;
}

/** Payment steps: each inserted once, read back; unfinished jobs found again. */
export interface PaymentStepStore {
  /** The pay call's claim on the payout; false when another call got there first. */
  request(
    merchantId: string,
    payoutId: string,
    paidAt: Date,
    requestedBy: string | null,
    context: EventContext,
  ): Promise<boolean>;
  /** Inserts the step, or returns the one that was inserted first. */
  insertOnce(
    merchantId: string,
    payoutId: string,
    step: 'recorded' | 'completed',
    fields: StepFields,
  ): Promise<PaymentStepRecord>;
  stepsOf(merchantId: string, payoutId: string): Promise<PaymentSteps>;
  isRequested(merchantId: string, payoutId: string): Promise<boolean>;
  /** Payments asked for before `olderThan` whose queued work has not finished. */
  unfinished(olderThan: Date, limit: number): Promise<PaymentStepRecord[]>;
  /** Marks the queued work of the payment done. */
  finish(merchantId: string, payoutId: string): Promise<void>;
}

export interface DueFilters {
  affiliate_id?: string;
  currency?: string;
}

/** The commission read model: what generation bundles and what payouts list. */
export interface CommissionCopies {
  /** Applies a commission event unless a newer one was applied; never touches `listed`. */
  save(record: Omit<CommissionRecord, 'listed'>): Promise<boolean>;
  findByIds(merchantId: string, ids: string[]): Promise<CommissionRecord[]>;
  /** Due commissions no payout lists yet, oldest first (the order they are bundled in). */
  findUnbundledDue(merchantId: string, filters: DueFilters): Promise<CommissionRecord[]>;
  /** Merchants that have due commissions no payout lists (for the scheduler). */
  merchantsWithUnbundledDue(): Promise<string[]>;
  markListed(merchantId: string, ids: string[]): Promise<void>;
}

/** Copies of another service's records (affiliates, campaigns), newest wins. */
export interface SnapshotStore<R extends SnapshotRecord<unknown>> {
  /** Keeps the copy unless a newer one is stored. */
  save(record: R): Promise<boolean>;
  /** Keeps a copy only when there is none. */
  seed(record: R): Promise<void>;
  /** Whether this process has seeded (or found) the copy already, so a seed would change nothing. */
  hasSeeded(merchantId: string, id: string): boolean;
  findById(merchantId: string, id: string): Promise<R | null>;
  findByIds(merchantId: string, ids: string[]): Promise<R[]>;
}

export type AffiliateSnapshots = SnapshotStore<AffiliateSnapshot>;
export type CampaignSnapshots = SnapshotStore<CampaignSnapshot>;
