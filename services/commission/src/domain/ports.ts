/**
 * What the use cases need from the outside world, so they stay free of I/O details. The stores
 * are implemented in data/ over MongoDB and take and return plain records (records.ts). A write
 * that carries events stores them in the same document write (its outbox) and the store relays
 * them once the write is done; the outbox sweep relays whatever a crash left behind.
 */
import { DuplicateError, type Page } from '@aff/api';
import type { CommissionState, CommissionStats, EventEnvelope } from '@aff/contracts';
import type { EventContext } from '@aff/messaging';
import type { SaleAmounts } from './commission-rules';
import type { CommissionRecord, SaleRecord } from './records';

/** The shared repository vocabulary (libs/api), re-exported for this domain's ports. */
export { DuplicateError, type Page };

/** The one call context of every service (libs/messaging). */
export type { CallContext } from '@aff/messaging';

/** Sales of a merchant; every call is scoped to the merchant. */
export interface SaleStore {
  findById(merchantId: string, id: string): Promise<SaleRecord | null>;
  findByCharge(merchantId: string, chargeId: string): Promise<SaleRecord | null>;
  findByIds(merchantId: string, ids: string[]): Promise<SaleRecord[]>;
  /** Writes the sale with its events. Throws `DuplicateError` when the sale exists. */
  insert(sale: SaleRecord, events: EventEnvelope[], context: EventContext): Promise<void>;
  /** Its commission was written or decided against (rides on a shared bulk write). */
  commissionDecided(merchantId: string, saleId: string): Promise<void>;
  /**
   * Stores larger refund amounts and `updatedAt` with the events, only while the stored refund
   * is smaller than `amounts.refund_amount_cents`. False when it no longer was.
   */
  recordRefund(
    merchantId: string,
    saleId: string,
    amounts: SaleAmounts,
    updatedAt: Date,
    events: EventEnvelope[],
    context: EventContext,
  ): Promise<boolean>;
}

/** What a conditional commission write requires of the stored commission. */
export interface CommissionCondition {
  /** Its state is one of these. */
  states: CommissionState[];
  /** Its amount is above this (amounts only shrink). */
  amountAbove?: number;
  /** It is still this version (its `updated_at`). */
  version?: Date;
  /** Whether it is held for a review (absent: either). */
  held?: boolean;
}

export interface CommissionFilters {
  affiliate_id?: string;
  states?: CommissionState[];
  /** Created at or after (the console's date filter; the REST list has none). */
  created_since?: Date;
  /** Created before. */
  created_until?: Date;
}

/** Commissions of a merchant (scoped per call), and the due sweep across merchants. */
export interface CommissionStore {
  findById(merchantId: string, id: string): Promise<CommissionRecord | null>;
  /** The sale's one commission. */
  findBySale(merchantId: string, saleId: string): Promise<CommissionRecord | null>;
  findByIds(merchantId: string, ids: string[]): Promise<CommissionRecord[]>;
  /** Newest first. */
  page(
    merchantId: string,
    filters: CommissionFilters,
    skip: number,
    limit: number,
  ): Promise<Page<CommissionRecord>>;
  /** Commissions of a referral that are not voided (what `max_commissions` counts). */
  countNotVoided(merchantId: string, referralId: string): Promise<number>;
  /** Writes the commission with its events. Throws `DuplicateError` on a duplicate key. */
  insert(record: CommissionRecord, events: EventEnvelope[], context: EventContext): Promise<void>;
  /**
   * Counts a stored commission in its merchant's list count unless it is counted already: a
   * writer that died between the insert and its count left it uncounted (idempotent).
   */
  countIfMissed(record: CommissionRecord): Promise<void>;
  /** Applies `changes` with the events while `condition` holds; the commission after, or null. */
  change(
    merchantId: string,
    id: string,
    condition: CommissionCondition,
    changes: Partial<CommissionRecord>,
    events: EventEnvelope[],
    context: EventContext,
  ): Promise<CommissionRecord | null>;
  /** Pending commissions of any merchant whose `due_at` is at or before `now`, none held. */
  pendingDueBy(now: Date, limit: number): Promise<CommissionRecord[]>;
  /** The held commissions of a referral. */
  heldOf(merchantId: string, referralId: string): Promise<CommissionRecord[]>;
}

/**
 * Publishes events straight to the stream (not through a document's outbox), awaiting the
 * stream's acknowledgement. For a consumer whose input message serves as the outbox: its
 * records are written without events, the events are published before the message is acked,
 * and a redelivered message publishes them again from the stored records (same ids).
 */
export interface EventSink {
  publish(events: EventEnvelope[], context: EventContext): Promise<void>;
}

/** The merchants' decisions on referrals held for review (from `referral.reviewed`). */
export interface ReviewDecisions {
  /** Idempotent: a decision is recorded once and never changes. */
  record(merchantId: string, referralId: string, decision: 'approved' | 'rejected'): Promise<void>;
  find(merchantId: string, referralId: string): Promise<'approved' | 'rejected' | null>;
}

/** A merchant's commissions newest first, with their total (the unfiltered list). */
export interface NewestCommissions {
  page(merchantId: string, skip: number, limit: number): Promise<Page<CommissionRecord>>;
}

/**
 * `commission_stats` as kept with the commission and sale writes (data/stats-tally.ts): per
 * affiliate, and per merchant over all its affiliates.
 */
export interface CommissionStatsReader {
  merchantTotals(merchantId: string): Promise<CommissionStats>;
  /** Every id asked for is answered (`{currencies: {}}` for an affiliate with none). */
  ofAffiliates(merchantId: string, ids: string[]): Promise<Record<string, CommissionStats>>;
}
