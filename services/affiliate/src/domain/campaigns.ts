/** Campaign use cases: the merchant's default campaign, create, update, read. */
import { randomUUID } from 'node:crypto';
import { OPERATIONS, buildEvent } from '@aff/contracts';
import type { CampaignView, CreateCampaignBody, UpdateCampaignBody } from '@aff/contracts';
import { AppError, errors, paginate, type PageRequest } from '@aff/api';
import type { CampaignRecord } from './records';
import {
  applyCampaignChanges,
  campaignProblems,
  campaignSettingsOf,
  defaultCampaignSettings,
  type CampaignSettings,
} from './campaign-rules';
import { toCampaignView } from './views';
import { DuplicateError, type CallContext, type CampaignStore } from './ports';

export class CampaignUseCases {
  constructor(
    private readonly campaigns: CampaignStore,
    private readonly defaultCampaignUrl: string,
  ) {}

  /** Every merchant has exactly one default campaign; it is created on first need. */
  async ensureDefault(ctx: CallContext): Promise<CampaignRecord> {
    const existing = await this.campaigns.findDefault(ctx.merchantId);
    if (existing) return existing;
    const record = this.newRecord(
      randomUUID(),
      ctx.merchantId,
      defaultCampaignSettings(this.defaultCampaignUrl),
      true,
    );
    try {
      return await this.campaigns.insertWithEvents(
        record,
        [buildEvent('campaign.created', ctx.merchantId, toCampaignView(record))],
        ctx.events,
      );
    } catch (error) {
      // A concurrent request created it first: use that one.
      if (!(error instanceof DuplicateError)) throw error;
      const winner = await this.campaigns.findDefault(ctx.merchantId);
      if (!winner) throw error;
      return winner;
    }
  }

  /** `input`: the request body, checked against the contract map's schema. */
  async create(ctx: CallContext, input: CreateCampaignBody): Promise<CampaignView> {
    const settings = applyCampaignChanges(defaultCampaignSettings(this.defaultCampaignUrl), input);
    const problems = campaignProblems(settings);
    if (problems.length > 0) throw errors.invalid(OPERATIONS.createCampaign.invalid, problems);
    const id = ctx.newId('campaign');
    // A re-run of a request whose answer was lost (same Idempotency-Key): answer what it made.
    const made = ctx.mayBeRerun ? await this.campaigns.findById(ctx.merchantId, id) : null;
    if (made) return toCampaignView(made);
    await this.ensureDefault(ctx);
    const record = this.newRecord(id, ctx.merchantId, settings, false);
    const view = toCampaignView(record);
    try {
      await this.campaigns.insertWithEvents(
        record,
        [buildEvent('campaign.created', ctx.merchantId, view)],
        ctx.events,
      );
      return view;
    } catch (error) {
      // The first run of this request, still going, wrote it a moment ago.
      const first =
        error instanceof DuplicateError && (await this.campaigns.findById(ctx.merchantId, id));
      if (!first) throw error;
      return toCampaignView(first);
    }
  }

  async update(ctx: CallContext, id: string, input: UpdateCampaignBody): Promise<CampaignView> {
    const current = await this.get(ctx, id);
    const settings = applyCampaignChanges(campaignSettingsOf(current), input);
    const problems = campaignProblems(settings);
    if (problems.length > 0) throw errors.invalid(OPERATIONS.updateCampaign.invalid, problems);
    const updatedAt = new Date();
    const view = toCampaignView({ ...current, ...settings, updated_at: updatedAt });
    const updated = await this.campaigns.updateWithEvents(
      ctx.merchantId,
      id,
      { ...settings, updated_at: updatedAt },
      [buildEvent('campaign.updated', ctx.merchantId, view)],
      ctx.events,
    );
    if (!updated) throw errors.notFound('Campaign', id);
    return view;
  }

  async get(ctx: CallContext, id: string): Promise<CampaignRecord> {
    const record = await this.campaigns.findById(ctx.merchantId, id);
    if (!record) throw errors.notFound('Campaign', id);
    return record;
  }

  async list(ctx: CallContext, page: PageRequest) {
    await this.ensureDefault(ctx);
    const result = await this.campaigns.page(ctx.merchantId, page.skip, page.limit);
    return paginate(result.items.map(toCampaignView), result.total, page);
  }

  /** The campaign an affiliate joins: the given one (must exist) or the default. */
  async resolveForAffiliate(ctx: CallContext, campaignId: string | null | undefined) {
    if (!campaignId) return this.ensureDefault(ctx);
    const record = await this.campaigns.findById(ctx.merchantId, campaignId);
    if (!record) throw new AppError('unprocessable', 'Campaign does not exist');
    return record;
  }

  private newRecord(
    id: string,
    merchantId: string,
    settings: CampaignSettings,
    isDefault: boolean,
  ): CampaignRecord {
    const now = new Date();
    return {
      _id: id,
      merchant_id: merchantId,
      ...settings,
      is_default: isDefault,
      default_slot: isDefault ? 'default' : id,
      created_at: now,
      updated_at: now,
    };
  }
}
