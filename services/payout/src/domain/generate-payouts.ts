/**
 * Bundles due commissions that no payout lists yet into the open payout of their affiliate and
 * currency. A commission enters a payout only by a claim, an insert under a unique id, which is
 * the one guard FerretDB applies atomically: two runs at once, or a run racing a payment, never
 * put one commission in two payouts. A commission stays a candidate until a payout lists it,
 * so a run that dies half-way is finished by the next one.
 */
import type { GeneratePayoutsBody, PayoutView } from '@aff/contracts';
import { internalCallContext } from '@aff/messaging';
import { bundleDue, type Bundle } from './payout-rules';
import { FULL, type PayoutPresenter } from './payout-presenter';
import type { PayoutRefresher } from './payout-refresher';
import type {
  CallContext,
  ClaimStore,
  CommissionCopies,
  DueFilters,
  PaymentStepStore,
  PayoutStore,
} from './ports';
import type { PayoutHolds } from './exports/export-ports';
import type { PayoutRecord } from './records';

/**
 * `mine`: claimed for the target. `open`: claimed for another open payout by a run that has
 * not listed it (yet, or ever: it died), so refresh that one. `paid`: in a payment's record.
 * `later`: a payment of its payout has not recorded its commissions yet; the next run decides.
 */
type ClaimOutcome =
  { kind: 'mine' } | { kind: 'open'; payoutId: string } | { kind: 'paid' } | { kind: 'later' };

/** A payment racing a run closes its target; the run then moves on to the next payout. */
const MAX_ROUNDS = 5;

export class GeneratePayouts {
  constructor(
    private readonly payouts: PayoutStore,
    private readonly commissions: CommissionCopies,
    private readonly claims: ClaimStore,
    private readonly steps: PaymentStepStore,
    private readonly refresher: PayoutRefresher,
    private readonly presenter: PayoutPresenter,
    private readonly holds: Pick<PayoutHolds, 'holdOf'>,
  ) {}

  /**
   * The REST call (`input`: its body, checked against the contract map's schema): the payouts
   * created or grown, newest first.
   */
  async generate(ctx: CallContext, input: GeneratePayoutsBody): Promise<PayoutView[]> {
    const filters: DueFilters = {
      ...(input.affiliate_id ? { affiliate_id: input.affiliate_id } : {}),
      ...(input.currency ? { currency: input.currency } : {}),
    };
    const touched = await this.run(ctx, filters);
    const records = await this.payouts.findVisibleByIds(ctx.merchantId, touched);
    return this.presenter.present(ctx.merchantId, records, FULL);
  }

  /** The scheduler's tick: every merchant with due commissions no payout lists. */
  async generateForAllMerchants(): Promise<number> {
    let touched = 0;
    for (const merchantId of await this.commissions.merchantsWithUnbundledDue()) {
      touched += (await this.run(internalCallContext(merchantId, {}), {})).length;
    }
    return touched;
  }

  /** Ids of the payouts that received commissions. */
  async run(ctx: CallContext, filters: DueFilters): Promise<string[]> {
    const due = await this.commissions.findUnbundledDue(ctx.merchantId, filters);
    const touched = new Set<string>();
    for (const bundle of bundleDue(due)) {
      for (const id of await this.bundle(ctx, bundle)) touched.add(id);
    }
    return [...touched];
  }

  private async bundle(ctx: CallContext, bundle: Bundle): Promise<string[]> {
    const touched = new Set<string>();
    let wanted = bundle.commission_ids;
    for (let round = 0; round < MAX_ROUNDS && wanted.length > 0; round++) {
      const target = await this.openPayout(ctx.merchantId, bundle.affiliate_id, bundle.currency);
      const claimed: string[] = [];
      const elsewhere = new Set<string>();
      const paid: string[] = [];
      for (const id of wanted) {
        const outcome = await this.claim(ctx.merchantId, id, target._id);
        if (outcome.kind === 'mine') claimed.push(id);
        if (outcome.kind === 'open') elsewhere.add(outcome.payoutId);
        if (outcome.kind === 'paid') paid.push(id);
      }
      await this.commissions.markListed(ctx.merchantId, paid);
      for (const payoutId of elsewhere) {
        await this.refresher.refresh(ctx.merchantId, payoutId, ctx.events);
        touched.add(payoutId);
      }
      if (claimed.length === 0) break;
      await this.refresher.refresh(ctx.merchantId, target._id, ctx.events);
      touched.add(target._id);
      // Claim first, then look for a payment (which records after it exists): either the
      // payment saw our claims, or we see the payment and check its record in the next round.
      if (await this.isClosed(ctx.merchantId, target._id)) {
        wanted = claimed;
        continue;
      }
      await this.commissions.markListed(ctx.merchantId, claimed);
      wanted = [];
    }
    return [...touched];
  }

  private async claim(merchantId: string, id: string, targetId: string): Promise<ClaimOutcome> {
    // Most commissions were never claimed: one insert settles them.
    if (await this.claims.insert(merchantId, id, 1, targetId)) return { kind: 'mine' };
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = await this.claims.current(merchantId, id);
      if (current?.payout_id === targetId) return { kind: 'mine' };
      let epoch = 1;
      if (current) {
        const steps = await this.steps.stepsOf(merchantId, current.payout_id);
        if (!steps.requested) return { kind: 'open', payoutId: current.payout_id };
        if (!steps.recorded) return { kind: 'later' };
        if (steps.recorded.commission_ids.includes(id)) return { kind: 'paid' };
        // Its payout was paid without it (the claim lost the race): claim it anew.
        epoch = current.epoch + 1;
      }
      if (await this.claims.insert(merchantId, id, epoch, targetId)) return { kind: 'mine' };
    }
    return { kind: 'later' };
  }

  /**
   * Paid, or held by an open export (whose file was written with what it held): it takes no
   * more commissions. One an export held that is canceled is due again, beside the newer one.
   */
  private async isClosed(merchantId: string, payoutId: string): Promise<boolean> {
    if (await this.steps.isRequested(merchantId, payoutId)) return true;
    return (await this.holds.holdOf(merchantId, payoutId)).export_id !== null;
  }

  /** The newest payout of the series unless a payment started on it; else the next one. */
  private async openPayout(
    merchantId: string,
    affiliateId: string,
    currency: string,
  ): Promise<PayoutRecord> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const latest = await this.payouts.latestInSeries(merchantId, affiliateId, currency);
      if (latest && !(await this.isClosed(merchantId, latest._id))) return latest;
      const series = (latest?.series ?? 0) + 1;
      const created = await this.payouts.createInSeries(merchantId, affiliateId, currency, series);
      if (created) return created;
    }
    throw new Error(`no open payout for ${affiliateId}/${currency}`);
  }
}
