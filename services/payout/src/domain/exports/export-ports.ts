/**
 * What the export use cases need from storage: the export records (each also an outbox for
 * its events) and the holds on payouts. Implemented in data/ over MongoDB.
 */
import type { EventEnvelope, PayoutExportFormat, PayoutExportSkipReason } from '@aff/contracts';
import type { EventContext } from '@aff/messaging';
import type { Page } from '../ports';
import type { PayoutHold, PayoutRecord } from '../records';
import type { ExportRow } from './export-files';

/**
 * Where an export is. Every step is recorded before it is taken, so a process that dies in
 * between leaves a phase the recovery finishes (completing, canceling) or undoes (creating):
 * - `creating`: its intent is stored, its payouts are being taken;
 * - `rolling_back` → `failed`: a creation that died is undone (never shown);
 * - `open`: shown, its payouts held;
 * - `completing` → `completed`, `canceling` → `canceled`: decided, being carried out.
 */
export type ExportPhase =
  | 'creating'
  | 'rolling_back'
  | 'failed'
  | 'open'
  | 'completing'
  | 'completed'
  | 'canceling'
  | 'canceled';

/** Phases of an export the merchant sees (the others are a creation in flight or undone). */
export const SHOWN_PHASES: readonly ExportPhase[] = [
  'open',
  'completing',
  'completed',
  'canceling',
  'canceled',
];

/** A frozen row, with what paying it pays (the payout's commissions when it was taken). */
export interface StoredExportRow extends ExportRow {
  commission_ids: string[];
}

export interface SkippedPayout {
  payout_id: string;
  reason: PayoutExportSkipReason;
}

export interface PayoutExportRecord {
  _id: string;
  merchant_id: string;
  format: PayoutExportFormat;
  currency: string;
  phase: ExportPhase;
  /**
   * The payouts it set out to take, stored with its intent before it takes any: what a
   * rollback releases (a release is conditional on this export holding the payout).
   */
  candidate_ids: string[];
  payout_ids: string[];
  skipped: SkippedPayout[];
  rows: StoredExportRow[];
  total_cents: number;
  /** The API secret that completed it (`paid_by_id` of its payouts), and when. */
  settled_by: string | null;
  settled_at: Date | null;
  /** Trace and request of the call that decided the last step (continued by the recovery). */
  context: EventContext | null;
  created_at: Date;
  /** Touched at every step of a creation: how the recovery tells a dead one from a slow one. */
  updated_at: Date;
}

export interface ExportStore {
  insert(record: PayoutExportRecord): Promise<void>;
  findShown(merchantId: string, id: string): Promise<PayoutExportRecord | null>;
  findAny(merchantId: string, id: string): Promise<PayoutExportRecord | null>;
  /** Shown exports, newest first. */
  page(merchantId: string, skip: number, limit: number): Promise<Page<PayoutExportRecord>>;
  /**
   * Moves the export from `from` to another phase with `fields`, and logs `events` in the same
   * write (relayed after it). Null when it was not in `from` (someone else moved it).
   */
  advance(
    merchantId: string,
    id: string,
    from: ExportPhase,
    fields: Partial<PayoutExportRecord>,
    events?: EventEnvelope[],
    context?: EventContext,
    olderThan?: Date,
  ): Promise<PayoutExportRecord | null>;
  /** Exports in one of `phases` not touched since `olderThan` (the recovery's work), oldest first. */
  stale(phases: ExportPhase[], olderThan: Date, limit: number): Promise<PayoutExportRecord[]>;
}

export interface PayoutHolds {
  /** Visible `due` payouts of a currency that no export holds, oldest first. */
  dueUnheld(merchantId: string, currency: string, limit: number): Promise<PayoutRecord[]>;
  findVisibleByIds(merchantId: string, ids: string[]): Promise<PayoutRecord[]>;
  /** Takes a due, unheld payout for the export (`processing` in the same write); false if lost. */
  take(merchantId: string, payoutId: string, currency: string, exportId: string): Promise<boolean>;
  /** Releases the payout if this export holds it. */
  release(merchantId: string, payoutId: string, exportId: string): Promise<boolean>;
  heldBy(merchantId: string, exportId: string): Promise<string[]>;
  holdOf(merchantId: string, payoutId: string): Promise<PayoutHold>;
  /**
   * Takes an unheld payout for a direct `pay` (`PAY_HOLD`), the same field an export takes, so
   * of a pay and an export racing for a payout exactly one wins. True also when pay held it
   * already (a retried pay after a crash); false when an export holds it.
   */
  takeForPay(merchantId: string, payoutId: string): Promise<boolean>;
  /** Pay holds older than `olderThan`, for the recovery to release those with no payment. */
  stalePayHolds(olderThan: Date, limit: number): Promise<PayoutRecord[]>;
  /** Releases a pay hold (a pay that died before its payment was requested). */
  releasePayHold(merchantId: string, payoutId: string): Promise<boolean>;
}
