/**
 * Brings a payout document up to date with its facts (claims, payment steps, commissions),
 * and logs the events its change calls for. Anyone who adds a fact about a payout refreshes it.
 * Writes are not isolated on FerretDB, so a refresh that read older facts may land after a
 * newer one; each refresh therefore checks the facts again after its write and repeats until
 * they hold still, so the last write always matches the facts.
 */
import { buildEvent, deterministicId, type EventEnvelope } from '@aff/contracts';
import type { EventContext } from '@aff/messaging';
import { AppError } from '@aff/api';
import {
  derivePayout,
  listedIds,
  plannedEvents,
  type PayoutFacts,
  type PlannedEvent,
} from './payout-derivation';
import { applicableMinimum } from './payout-rules';
import { FULL, type PayoutPresenter } from './payout-presenter';
import type {
  AffiliateSnapshots,
  CampaignSnapshots,
  ClaimStore,
  CommissionCopies,
  PaymentStepStore,
  PayoutStore,
} from './ports';
import type { PayoutHolds } from './exports/export-ports';
import type { CommissionRecord, DerivedPayout, PayoutRecord } from './records';

const MAX_ROUNDS = 10;

export class PayoutRefresher {
  constructor(
    private readonly payouts: PayoutStore,
    private readonly claims: Pick<ClaimStore, 'forPayout'>,
    private readonly steps: Pick<PaymentStepStore, 'stepsOf'>,
    private readonly commissions: Pick<CommissionCopies, 'findByIds'>,
    private readonly affiliates: AffiliateSnapshots,
    private readonly campaigns: CampaignSnapshots,
    private readonly presenter: PayoutPresenter,
    private readonly holds: Pick<PayoutHolds, 'holdOf'>,
  ) {}

  /** The payout as its facts have it now. */
  async refresh(
    merchantId: string,
    payoutId: string,
    context: EventContext,
  ): Promise<PayoutRecord> {
    let before = await this.payouts.findById(merchantId, payoutId);
    if (!before) throw new AppError('not_found', `Payout not found: ${payoutId}`);
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const { facts, commissions } = await this.loadFacts(before);
      const derived = derivePayout(facts);
      const planned = plannedEvents(before, derived, facts.payment);
      const record: PayoutRecord = { ...before, ...derived };
      const envelopes: EventEnvelope[] = [];
      for (const event of planned) {
        envelopes.push(await this.envelope(event, record, facts, commissions));
      }
      // The store logs the events before the write (a crash in between re-plans the same
      // events, which are dropped as copies) and relays them after it.
      await this.payouts.saveRefresh(
        merchantId,
        payoutId,
        sameDerived(before, derived) ? null : derived,
        envelopes,
        context,
      );
      const check = derivePayout((await this.loadFacts(record)).facts);
      if (sameDerived(check, derived)) {
        return record;
      }
      before = record;
    }
    throw new AppError('unavailable', `Payout ${payoutId} is changing too often; try again`);
  }

  private async loadFacts(payout: PayoutRecord) {
    const [claims, payment, hold] = await Promise.all([
      this.claims.forPayout(payout.merchant_id, payout._id),
      this.steps.stepsOf(payout.merchant_id, payout._id),
      this.holds.holdOf(payout.merchant_id, payout._id),
    ]);
    const ids = listedIds({ claims, payment });
    const commissions = await this.commissions.findByIds(payout.merchant_id, ids);
    const facts: PayoutFacts = {
      insertedAt: payout.created_at,
      claims,
      commissions,
      payment,
      hold,
      minimumPayoutCents: payment.requested ? 0 : await this.minimumFor(payout, commissions),
    };
    return { facts, commissions };
  }

  private async envelope(
    event: PlannedEvent,
    current: PayoutRecord,
    facts: PayoutFacts,
    commissions: CommissionRecord[],
  ): Promise<EventEnvelope> {
    const record =
      event.view === 'processing'
        ? {
            ...current,
            ...derivePayout({ ...facts, payment: { ...facts.payment, completed: undefined } }),
          }
        : current;
    const view = await this.presenter.presentOne(record.merchant_id, record, FULL, commissions);
    const occurredAt =
      event.type === 'payout.updated' && event.view === 'processing'
        ? (record.paid_at ?? record.updated_at)
        : record.updated_at;
    return {
      ...buildEvent(event.type, record.merchant_id, view, new Date(occurredAt)),
      id: deterministicId(`payout:${record._id}:${event.key}`),
    };
  }

  private async minimumFor(payout: PayoutRecord, commissions: CommissionRecord[]) {
    const affiliate = await this.affiliates.findById(payout.merchant_id, payout.affiliate_id);
    const campaignIds = [affiliate?.campaign_id, ...commissions.map((c) => c.campaign_id)];
    const campaigns = await this.campaigns.findByIds(
      payout.merchant_id,
      campaignIds.filter((id): id is string => Boolean(id)),
    );
    const minimums = new Map(campaigns.map((c) => [c._id, c.view.minimum_payout_cents]));
    return applicableMinimum(affiliate?.campaign_id ?? null, commissions, (id) => minimums.get(id));
  }
}

function sameDerived(a: DerivedPayout, b: DerivedPayout): boolean {
  return (
    a.fingerprint === b.fingerprint &&
    a.commission_count === b.commission_count &&
    new Date(a.created_at).getTime() === new Date(b.created_at).getTime() &&
    new Date(a.updated_at).getTime() === new Date(b.updated_at).getTime()
  );
}
