/**
 * Brings a payout document up to date with its facts (claims, payment steps, commissions),
 * and logs the events its change calls for. Anyone who adds a fact about a payout refreshes it.
 * Writes are not isolated on FerretDB, so a refresh that read older facts may land after a
 * newer one; each refresh therefore checks the facts again after its write and repeats until
 * they hold still, so the last write always matches the facts.
 */
import { buildEvent, deterministicId, type EventEnvelope } from '@aff/contracts';
import type { EventContext, PendingEvent } from '@aff/messaging';
import { AppError } from '@aff/api';
import type { ClaimRepository } from '../data/claim.repository';
import type { CommissionRepository } from '../data/commission.repository';
import type { CommissionRecord } from '../data/commission.schema';
import type { PaymentStepRepository } from '../data/payment-step.repository';
import type { PayoutEventRepository } from '../data/payout-event.repository';
import type { DerivedPayout, PayoutRepository } from '../data/payout.repository';
import type { PayoutRecord } from '../data/payout.schema';
import type { SnapshotRepository } from '../data/snapshot.repository';
import type { AffiliateSnapshot, CampaignSnapshot } from '../data/snapshot.schema';
import {
  derivePayout,
  listedIds,
  plannedEvents,
  type PayoutFacts,
  type PlannedEvent,
} from './payout-derivation';
import { applicableMinimum } from './payout-rules';
import { FULL, type PayoutPresenter } from './payout-presenter';
import type { EventRelay } from './ports';

const MAX_ROUNDS = 10;

export class PayoutRefresher {
  constructor(
    private readonly payouts: PayoutRepository,
    private readonly claims: ClaimRepository,
    private readonly steps: PaymentStepRepository,
    private readonly commissions: CommissionRepository,
    private readonly affiliates: SnapshotRepository<AffiliateSnapshot>,
    private readonly campaigns: SnapshotRepository<CampaignSnapshot>,
    private readonly presenter: PayoutPresenter,
    private readonly events: PayoutEventRepository,
    private readonly relay: EventRelay,
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
      // Logged before the write: a crash in between re-plans the same events, which are dropped.
      const pending: PendingEvent[] = [];
      for (const event of planned) {
        const envelope = await this.envelope(event, record, facts, commissions);
        pending.push(...(await this.events.append(payoutId, envelope, context)));
      }
      if (!sameDerived(before, derived))
        await this.payouts.saveDerived(merchantId, payoutId, derived);
      this.relay.relay(pending);
      const check = derivePayout((await this.loadFacts(record)).facts);
      if (sameDerived(check, derived)) {
        return record;
      }
      before = record;
    }
    throw new AppError('unavailable', `Payout ${payoutId} is changing too often; try again`);
  }

  private async loadFacts(payout: PayoutRecord) {
    const [claims, payment] = await Promise.all([
      this.claims.forPayout(payout.merchant_id, payout._id),
      this.steps.stepsOf(payout.merchant_id, payout._id),
    ]);
    const ids = listedIds({ claims, payment });
    const commissions = await this.commissions.findByIds(payout.merchant_id, ids);
    const facts: PayoutFacts = {
      insertedAt: payout.created_at,
      claims,
      commissions,
      payment,
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
