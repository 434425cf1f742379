/**
 * Finishes what a dead process left of an export (domain/exports): a creation whose lease ran
 * out is rolled back (its client got no answer), a decided completion or cancellation is
 * carried out. Every step it re-runs is idempotent, so a live process doing the same is harmless.
 */
import type { IntervalJob } from '@aff/kernel';
import type { Logger } from '@aff/logging';
import type { ExportStore, PayoutHolds } from '../domain/exports/export-ports';
import type { PaymentStepStore } from '../domain/ports';
import type { PayoutRefresher } from '../domain/payout-refresher';
import type { SettleExport } from '../domain/exports/settle-export';

const BATCH = 20;

export interface ExportRecoveryOptions {
  everyMs: number;
  /** How long a step may go untouched before it counts as its process's death. */
  leaseMs: number;
}

export class ExportRecovery {
  constructor(
    private readonly exports: ExportStore,
    private readonly settle: SettleExport,
    private readonly holds: Pick<PayoutHolds, 'stalePayHolds' | 'releasePayHold'>,
    private readonly steps: Pick<PaymentStepStore, 'isRequested'>,
    private readonly refresher: Pick<PayoutRefresher, 'refresh'>,
    private readonly opts: ExportRecoveryOptions,
    private readonly log: Logger,
  ) {}

  /** How many exports it moved on. */
  async run(): Promise<number> {
    const olderThan = new Date(Date.now() - this.opts.leaseMs);
    let moved = 0;
    for (const found of await this.exports.stale(['creating'], olderThan, BATCH)) {
      // Guarded by the same lease: a creation that touched it since is alive after all.
      const taken = await this.exports.advance(
        found.merchant_id,
        found._id,
        'creating',
        { phase: 'rolling_back' },
        [],
        {},
        olderThan,
      );
      if (!taken) continue;
      this.log.warn({ exportId: found._id }, 'unfinished payout export rolled back');
      await this.settle.rollBack(taken);
      moved++;
    }
    for (const found of await this.exports.stale(['rolling_back'], olderThan, BATCH)) {
      await this.settle.rollBack(found);
      moved++;
    }
    for (const found of await this.exports.stale(['completing'], olderThan, BATCH)) {
      this.log.info({ exportId: found._id }, 'unfinished payout export completion resumed');
      await this.settle.finishComplete(found);
      moved++;
    }
    for (const found of await this.exports.stale(['canceling'], olderThan, BATCH)) {
      this.log.info({ exportId: found._id }, 'unfinished payout export cancellation resumed');
      await this.settle.finishCancel(found);
      moved++;
    }
    // A pay that died between holding the payout and requesting its payment: let it go.
    for (const held of await this.holds.stalePayHolds(olderThan, BATCH)) {
      if (await this.steps.isRequested(held.merchant_id, held._id)) continue;
      if (await this.holds.releasePayHold(held.merchant_id, held._id)) {
        this.log.warn({ payoutId: held._id }, 'pay hold without a payment released');
        await this.refresher.refresh(held.merchant_id, held._id, {});
        moved++;
      }
    }
    return moved;
  }

  job(): IntervalJob {
    return {
      everyMs: this.opts.everyMs,
      run: () => this.run(),
      failure: 'payout export recovery failed',
    };
  }
}
