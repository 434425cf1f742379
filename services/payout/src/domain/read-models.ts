/**
 * Applies other services' events to the local copies a payout needs: commissions (what to
 * bundle and pay), affiliates (embedded in payouts) and campaigns (minimum payout). Every
 * apply is idempotent and ignores a copy older than the stored one.
 */
import type {
  AffiliateView,
  CampaignView,
  CommissionEventView,
  EventEnvelope,
} from '@aff/contracts';
import type { EventContext } from '@aff/messaging';
import type { PayoutRefresher } from './payout-refresher';
import type { AffiliateSnapshots, CampaignSnapshots, ClaimStore, CommissionCopies } from './ports';

const date = (value: string) => new Date(value);
const dateOrNull = (value: string | null) => (value === null ? null : new Date(value));

/**
 * Each apply gets its event's data as the contract checked it (the consumers' typed tables), so
 * nothing is parsed again here.
 */
export class ReadModels {
  constructor(
    private readonly commissions: CommissionCopies,
    private readonly affiliates: AffiliateSnapshots,
    private readonly campaigns: CampaignSnapshots,
    private readonly claims: ClaimStore,
    private readonly refresher: PayoutRefresher,
  ) {}

  async applyCommission(
    event: EventEnvelope<CommissionEventView>,
    context: EventContext,
  ): Promise<void> {
    const data = event.data;
    const merchantId = event.merchant_id;
    // Copies embedded here only fill gaps: the affiliate and campaign events own the updates.
    await this.applyCampaign(merchantId, data.campaign, 'seed');
    await this.applyAffiliate(merchantId, data.sale.affiliate, 'seed');
    const applied = await this.commissions.save({
      _id: data.id,
      merchant_id: merchantId,
      affiliate_id: data.sale.affiliate.id,
      campaign_id: data.campaign?.id ?? null,
      amount: data.amount,
      currency: data.currency.toUpperCase(),
      state: data.state,
      processor_account_id: data.sale.processor_account_id ?? null,
      due_at: date(data.due_at),
      paid_at: dateOrNull(data.paid_at),
      voided_at: dateOrNull(data.voided_at),
      held: data.held ?? false,
      created_at: date(data.created_at),
      updated_at: date(data.updated_at),
    });
    // A change to a commission of an unpaid payout (reduced or voided by a refund) changes the
    // payout's amount, and maybe its state. A stale event changed nothing, and a created event
    // carries the first version, which any payout claiming the commission was built from: the
    // claim look-up is skipped for both (a round trip per new commission).
    if (!applied || event.type === 'commission.created') return;
    const claim = await this.claims.current(merchantId, data.id);
    if (claim) await this.refresher.refresh(merchantId, claim.payout_id, context);
  }

  /** An affiliate view (from affiliate events or a sale); its campaign is kept too. */
  async applyAffiliate(
    merchantId: string,
    data: AffiliateView,
    mode: 'save' | 'seed' = 'save',
  ): Promise<void> {
    if (mode === 'seed' && this.affiliates.hasSeeded(merchantId, data.id)) return;
    // A payout embeds the affiliate with its campaign only: links and stats belong to the
    // affiliate's own endpoints (docs/payouts.md).
    const { campaign, ...rest } = data;
    const view = {
      ...withoutKeys(rest, ['links', 'commission_stats']),
      // The schema's defaults, for views published before wallet confirmation existed: a
      // handler gets the data as it was sent, defaults not filled in.
      unconfirmed_wallet_a_email: rest.unconfirmed_wallet_a_email ?? null,
      unconfirmed_wallet_b_email: rest.unconfirmed_wallet_b_email ?? null,
    };
    if (campaign) await this.applyCampaign(merchantId, campaign, mode);
    await this.affiliates[mode]({
      _id: view.id,
      merchant_id: merchantId,
      view,
      campaign_id: campaign?.id ?? null,
      updated_at: date(view.updated_at),
    });
  }

  async applyCampaign(
    merchantId: string,
    data: CampaignView | undefined,
    mode: 'save' | 'seed' = 'save',
  ): Promise<void> {
    if (data === undefined) return;
    if (mode === 'seed' && this.campaigns.hasSeeded(merchantId, data.id)) return;
    await this.campaigns[mode]({
      _id: data.id,
      merchant_id: merchantId,
      view: data,
      updated_at: date(data.updated_at),
    });
  }
}

function withoutKeys<T extends object, K extends keyof T>(value: T, keys: K[]): Omit<T, K> {
  const copy = { ...value };
  for (const key of keys) delete copy[key];
  return copy;
}
