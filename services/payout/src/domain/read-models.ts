/**
 * Applies other services' events to the local copies a payout needs: commissions (what to
 * bundle and pay), affiliates (embedded in payouts) and campaigns (minimum payout). Every
 * apply is idempotent and ignores a copy older than the stored one.
 */
import { z } from 'zod';
import {
  COMMISSION_STATES,
  affiliateViewSchema,
  campaignViewSchema,
  type EventEnvelope,
} from '@aff/contracts';
import type { EventContext } from '@aff/messaging';
import { AppError } from '@aff/api';
import type { Logger } from '@aff/logging';
import type { PayoutRefresher } from './payout-refresher';
import type { AffiliateSnapshots, CampaignSnapshots, ClaimStore, CommissionCopies } from './ports';

const timestamp = z.string().refine((value) => !Number.isNaN(Date.parse(value)), {
  error: 'must be an ISO 8601 timestamp',
});

/**
 * What this service reads of a commission event: lenient about the rest, so a field added to
 * the commission view upstream does not stop payouts.
 */
const commissionEventSchema = z.object({
  id: z.string().min(1),
  amount: z.number().int(),
  currency: z.string().min(1),
  state: z.enum(COMMISSION_STATES),
  due_at: timestamp,
  paid_at: timestamp.nullable(),
  voided_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
  campaign: z.unknown().optional(),
  held: z.boolean().optional(),
  sale: z.object({
    processor_account_id: z.string().nullable().optional(),
    affiliate: z.looseObject({ id: z.string().min(1) }),
  }),
});

const date = (value: string) => new Date(value);
const dateOrNull = (value: string | null) => (value === null ? null : new Date(value));

export class ReadModels {
  constructor(
    private readonly commissions: CommissionCopies,
    private readonly affiliates: AffiliateSnapshots,
    private readonly campaigns: CampaignSnapshots,
    private readonly claims: ClaimStore,
    private readonly refresher: PayoutRefresher,
  ) {}

  async applyCommission(event: EventEnvelope, context: EventContext, log: Logger): Promise<void> {
    const parsed = commissionEventSchema.safeParse(event.data);
    if (!parsed.success) {
      // Not retryable: the same bytes will never parse; the consumer terminates the message.
      throw new AppError('unprocessable', `Malformed ${event.type}: ${parsed.error.message}`);
    }
    const data = parsed.data;
    const merchantId = event.merchant_id;
    // Copies embedded here only fill gaps: the affiliate and campaign events own the updates.
    await this.applyCampaign(merchantId, data.campaign, log, 'seed');
    await this.applyAffiliate(merchantId, data.sale.affiliate, log, 'seed');
    const campaign = campaignViewSchema.safeParse(data.campaign);
    const applied = await this.commissions.save({
      _id: data.id,
      merchant_id: merchantId,
      affiliate_id: data.sale.affiliate.id,
      campaign_id: campaign.success ? campaign.data.id : null,
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
    data: unknown,
    log: Logger,
    mode: 'save' | 'seed' = 'save',
  ): Promise<void> {
    if (mode === 'seed' && this.affiliates.hasSeeded(merchantId, idOf(data))) return;
    const parsed = affiliateViewSchema.safeParse(data);
    if (!parsed.success) {
      log.warn({ issues: parsed.error.issues }, 'affiliate view not usable; not kept');
      return;
    }
    // A payout embeds the affiliate with its campaign only: links and stats belong to the
    // affiliate's own endpoints (docs/payouts.md).
    const { campaign, ...rest } = parsed.data;
    const view = withoutKeys(rest, ['links', 'commission_stats']);
    if (campaign) await this.applyCampaign(merchantId, campaign, log, mode);
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
    data: unknown,
    log: Logger,
    mode: 'save' | 'seed' = 'save',
  ): Promise<void> {
    if (data === undefined) return;
    if (mode === 'seed' && this.campaigns.hasSeeded(merchantId, idOf(data))) return;
    const parsed = campaignViewSchema.safeParse(data);
    if (!parsed.success) {
      log.warn({ issues: parsed.error.issues }, 'campaign view not usable; not kept');
      return;
    }
    await this.campaigns[mode]({
      _id: parsed.data.id,
      merchant_id: merchantId,
      view: parsed.data,
      updated_at: date(parsed.data.updated_at),
    });
  }
}

/**
 * The `id` of an embedded view before it is checked: every commission event embeds the same
 * affiliate and campaign, and checking a view only to find its copy seeded already was a large
 * part of this service's CPU per commission.
 */
function idOf(data: unknown): string {
  const id = (data as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : '';
}

function withoutKeys<T extends object, K extends keyof T>(value: T, keys: K[]): Omit<T, K> {
  const copy = { ...value };
  for (const key of keys) delete copy[key];
  return copy;
}
