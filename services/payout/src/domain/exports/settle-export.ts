/**
 * The second half of an export's life: `complete` (its payouts are paid as `pay` pays them) and
 * `cancel` (they are due again), and the undoing of a creation that died. Each is decided by one
 * guarded phase change on the export (only an open export moves on), then carried out by
 * idempotent steps, then closed with its event; the recovery re-runs a step whose process died.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { buildEvent, deterministicId, type PayoutExportView } from '@aff/contracts';
import { errors } from '@aff/api';
import type { EventContext } from '@aff/messaging';
import type { PayoutRefresher } from '../payout-refresher';
import type { CallContext, PaymentQueue, PaymentStepStore } from '../ports';
import type { ExportPresenter } from './export-presenter';
import type { ExportStore, PayoutExportRecord, PayoutHolds } from './export-ports';

export const NOT_OPEN = 'Payout export is not open';

export class SettleExport {
  constructor(
    private readonly exports: ExportStore,
    private readonly holds: PayoutHolds,
    private readonly steps: Pick<PaymentStepStore, 'request' | 'insertOnce'>,
    private readonly refresher: PayoutRefresher,
    private readonly presenter: ExportPresenter,
    private readonly queue: PaymentQueue,
    /** Pause before each payout is paid or released: 0 in production; for fault tests. */
    private readonly stepDelayMs = 0,
  ) {}

  /** `apiKeyId`: the API secret that completed it, `paid_by_id` of every payout in it. */
  async complete(ctx: CallContext, id: string, apiKeyId: string | null) {
    const decided = await this.exports.advance(ctx.merchantId, id, 'open', {
      phase: 'completing',
      settled_by: apiKeyId,
      settled_at: new Date(),
      context: plain(ctx.events),
    });
    if (!decided) throw await this.notOpen(ctx.merchantId, id, 'complete');
    return this.presenter.view(await this.finishComplete(decided));
  }

  async cancel(ctx: CallContext, id: string): Promise<PayoutExportView> {
    const decided = await this.exports.advance(ctx.merchantId, id, 'open', {
      phase: 'canceling',
      settled_at: new Date(),
      context: plain(ctx.events),
    });
    if (!decided) throw await this.notOpen(ctx.merchantId, id, 'cancel');
    return this.presenter.view(await this.finishCancel(decided));
  }

  /** Pays each payout as `PUT /v1/payouts/:id/pay` does, with what the file paid. */
  async finishComplete(record: PayoutExportRecord): Promise<PayoutExportRecord> {
    const { merchant_id: merchantId } = record;
    const context = record.context ?? {};
    const paidAt = record.settled_at ?? new Date();
    for (const row of record.rows) {
      if (this.stepDelayMs > 0) await delay(this.stepDelayMs);
      // A repeat (a recovery) finds the steps inserted already; the payment happens once.
      await this.steps.request(merchantId, row.payout_id, paidAt, record.settled_by, context);
      await this.steps.insertOnce(merchantId, row.payout_id, 'recorded', {
        commission_ids: row.commission_ids,
        amount: row.amount,
        paid_at: paidAt,
      });
      await this.refresher.refresh(merchantId, row.payout_id, context);
      this.queue.enqueue(merchantId, row.payout_id);
    }
    return this.close(record, 'completing', 'completed');
  }

  async finishCancel(record: PayoutExportRecord): Promise<PayoutExportRecord> {
    await this.releaseAll(record, record.payout_ids);
    return this.close(record, 'canceling', 'canceled');
  }

  /** Undoes a creation that died (or lost its lease): every payout it may hold is due again. */
  async rollBack(record: PayoutExportRecord): Promise<void> {
    await this.releaseAll(record, record.candidate_ids);
    await this.exports.advance(record.merchant_id, record._id, 'rolling_back', {
      phase: 'failed',
    });
  }

  /** Releases what the export holds of `payoutIds`, and refreshes each (state back from it). */
  async releaseAll(record: PayoutExportRecord, payoutIds: string[]): Promise<void> {
    const context: EventContext = record.context ?? {};
    for (const payoutId of payoutIds) {
      await this.holds.release(record.merchant_id, payoutId, record._id);
      // Refreshed even when this export did not hold it (any more): a release whose refresh
      // died left the payout's shown state behind; a refresh is idempotent.
      await this.refresher.refresh(record.merchant_id, payoutId, context);
    }
  }

  private async close(
    record: PayoutExportRecord,
    from: 'completing' | 'canceling',
    to: 'completed' | 'canceled',
  ): Promise<PayoutExportRecord> {
    const type = to === 'completed' ? 'payout_export.completed' : 'payout_export.canceled';
    const view = this.presenter.view({ ...record, phase: to });
    const occurredAt = record.settled_at ?? new Date();
    const event = {
      ...buildEvent(type, record.merchant_id, view, new Date(occurredAt)),
      id: deterministicId(`payout_export:${record._id}:${to}`),
    };
    const closed = await this.exports.advance(
      record.merchant_id,
      record._id,
      from,
      { phase: to },
      [event],
      record.context ?? {},
    );
    // Null: another process (the recovery, a replica) closed it first.
    return closed ?? (await this.exports.findAny(record.merchant_id, record._id)) ?? record;
  }

  private async notOpen(merchantId: string, id: string, what: 'complete' | 'cancel') {
    const found = await this.exports.findShown(merchantId, id);
    if (!found) return errors.notFound('Payout export', id);
    return errors.invalid(`Could not ${what} payout export.`, [NOT_OPEN]);
  }
}

/** Stored as plain JSON (it may carry getters from the tracing context). */
function plain(context: EventContext): EventContext {
  return JSON.parse(JSON.stringify(context)) as EventContext;
}
