/**
 * `POST /v1/payout_exports`: takes the due payouts of a currency (or the ones asked for) whose
 * affiliate can be paid in the format. In this order, so that a crash between any two steps
 * leaves every payout in exactly one state (docs/payouts.md, "Crash safety"):
 * 1. the intent (`creating`, with the payouts it will try) is stored;
 * 2. each payout is taken by one guarded conditional update (due and unheld → processing, held
 *    by this export), so of two exports racing for a payout one gets it;
 * 3. the rows are frozen and the export becomes `open` with its event, in one write.
 * A creation that dies is rolled back by the recovery once its lease has run out.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import {
  buildEvent,
  deterministicId,
  type CreatePayoutExportBody,
  type PayoutExportView,
} from '@aff/contracts';
import { AppError, errors } from '@aff/api';
import type { PayoutRefresher } from '../payout-refresher';
import type { AffiliateSnapshots, CallContext, PaymentStepStore } from '../ports';
import type { PayoutRecord } from '../records';
import { minorUnitExponent } from './export-amounts';
import { exportRow, payoutProblem, walletProblem } from './export-eligibility';
import type { ExportPresenter } from './export-presenter';
import type { ExportStore, PayoutExportRecord, PayoutHolds, SkippedPayout } from './export-ports';
import type { SettleExport } from './settle-export';

export const CREATE_FAILED = 'Could not create payout export.';
/** Two PayPal files' worth; the frozen rows stay far below MongoDB's document size limit. */
export const MAX_EXPORT_PAYOUTS = 10_000;

export interface CreateExportOptions {
  /** Pause before each payout is taken: 0 in production; fault tests stop a process in it. */
  stepDelayMs: number;
}

type Wallets = Parameters<typeof walletProblem>[1];

export class CreateExport {
  constructor(
    private readonly exports: ExportStore,
    private readonly holds: PayoutHolds,
    private readonly steps: Pick<PaymentStepStore, 'isRequested'>,
    private readonly affiliates: AffiliateSnapshots,
    private readonly refresher: PayoutRefresher,
    private readonly presenter: ExportPresenter,
    private readonly settle: SettleExport,
    private readonly opts: CreateExportOptions,
  ) {}

  async create(ctx: CallContext, input: CreatePayoutExportBody): Promise<PayoutExportView> {
    const { format, currency } = input;
    if (minorUnitExponent(currency) === null) {
      throw errors.invalid(CREATE_FAILED, ['Currency is not an ISO 4217 currency']);
    }
    const skipped: SkippedPayout[] = [];
    const candidates: PayoutRecord[] = [];
    const found = await this.lookUp(ctx, input, skipped);
    const wallets = await this.walletsOf(ctx.merchantId, found);
    for (const payout of found) {
      const problem = walletProblem(format, wallets.get(payout.affiliate_id) ?? null);
      if (problem) skipped.push({ payout_id: payout._id, reason: problem });
      else candidates.push(payout);
    }
    if (candidates.length === 0) {
      throw errors.invalid(CREATE_FAILED, [`No due payout in ${currency} can be exported`]);
    }
    const now = new Date();
    const record: PayoutExportRecord = {
      _id: randomUUID(),
      merchant_id: ctx.merchantId,
      format,
      currency,
      phase: 'creating',
      candidate_ids: candidates.map((p) => p._id),
      payout_ids: [],
      skipped: [],
      rows: [],
      total_cents: 0,
      settled_by: null,
      settled_at: null,
      context: JSON.parse(JSON.stringify(ctx.events)) as PayoutExportRecord['context'],
      created_at: now,
      updated_at: now,
    };
    await this.exports.insert(record);
    for (const payout of candidates) {
      if (this.opts.stepDelayMs > 0) await delay(this.opts.stepDelayMs);
      // Also the lease's heartbeat: false once the recovery took this creation for dead.
      if (!(await this.exports.advance(ctx.merchantId, record._id, 'creating', {}))) {
        return this.abandon(record);
      }
      const reason = await this.take(ctx, payout, record._id);
      if (reason) skipped.push({ payout_id: payout._id, reason });
    }
    return this.finalise(ctx, record, skipped);
  }

  /** The payouts asked for, or every due one of the currency; refusals go to `skipped`. */
  private async lookUp(ctx: CallContext, input: CreatePayoutExportBody, skipped: SkippedPayout[]) {
    if (!input.payout_ids) {
      return this.holds.dueUnheld(ctx.merchantId, input.currency, MAX_EXPORT_PAYOUTS);
    }
    const found = await this.holds.findVisibleByIds(ctx.merchantId, input.payout_ids);
    const byId = new Map(found.map((payout) => [payout._id, payout]));
    const usable: PayoutRecord[] = [];
    for (const id of input.payout_ids) {
      const reason = payoutProblem(byId.get(id), input.currency);
      if (reason) skipped.push({ payout_id: id, reason });
      else usable.push(byId.get(id)!);
    }
    return usable;
  }

  /** Null when taken; else why not. */
  private async take(ctx: CallContext, payout: PayoutRecord, exportId: string) {
    const { merchantId } = ctx;
    if (!(await this.holds.take(merchantId, payout._id, payout.currency, exportId))) {
      return 'in_other_export' as const;
    }
    // A pay call that got in between the look-up and the take has paid it: let it go.
    if (await this.steps.isRequested(merchantId, payout._id)) {
      await this.holds.release(merchantId, payout._id, exportId);
      await this.refresher.refresh(merchantId, payout._id, ctx.events);
      return 'not_due' as const;
    }
    await this.refresher.refresh(merchantId, payout._id, ctx.events);
    return null;
  }

  private async finalise(
    ctx: CallContext,
    record: PayoutExportRecord,
    skipped: SkippedPayout[],
  ): Promise<PayoutExportView> {
    const held = await this.holds.heldBy(ctx.merchantId, record._id);
    const payouts = (await this.holds.findVisibleByIds(ctx.merchantId, held)).sort(
      (a, b) =>
        new Date(a.created_at).getTime() - new Date(b.created_at).getTime() ||
        a._id.localeCompare(b._id),
    );
    // Wallets read again: one unconfirmed since the look-up is not paid to.
    const wallets = await this.walletsOf(ctx.merchantId, payouts);
    const rows = [];
    for (const payout of payouts) {
      const affiliate = wallets.get(payout.affiliate_id) ?? null;
      const problem = walletProblem(record.format, affiliate);
      if (!problem) {
        rows.push(exportRow(payout, affiliate));
        continue;
      }
      skipped.push({ payout_id: payout._id, reason: problem });
      await this.holds.release(ctx.merchantId, payout._id, record._id);
      await this.refresher.refresh(ctx.merchantId, payout._id, ctx.events);
    }
    const fields = {
      phase: 'open' as const,
      payout_ids: rows.map((row) => row.payout_id),
      rows,
      skipped,
      total_cents: rows.reduce((sum, row) => sum + row.amount, 0),
    };
    if (rows.length === 0) {
      await this.exports.advance(ctx.merchantId, record._id, 'creating', { phase: 'failed' });
      throw errors.invalid(CREATE_FAILED, [`No due payout in ${record.currency} can be exported`]);
    }
    const view = this.presenter.view({ ...record, ...fields });
    const event = {
      ...buildEvent('payout_export.created', ctx.merchantId, view, new Date(record.created_at)),
      id: deterministicId(`payout_export:${record._id}:created`),
    };
    const opened = await this.exports.advance(
      ctx.merchantId,
      record._id,
      'creating',
      fields,
      [event],
      ctx.events,
    );
    if (!opened) return this.abandon(record);
    return this.presenter.view(opened);
  }

  /** The recovery took this creation for dead: undo what it took since, and say so. */
  private async abandon(record: PayoutExportRecord): Promise<never> {
    await this.settle.releaseAll(record, record.candidate_ids);
    throw new AppError('unavailable', 'Payout export took too long; try again');
  }

  private async walletsOf(merchantId: string, payouts: PayoutRecord[]) {
    const ids = [...new Set(payouts.map((p) => p.affiliate_id))];
    const found = await this.affiliates.findByIds(merchantId, ids);
    return new Map<string, Wallets>(found.map((a) => [a._id, a.view]));
  }
}
