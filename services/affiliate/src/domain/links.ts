/** Affiliate links: the first one is reserved with the affiliate; more can be added later. */
import { randomUUID } from 'node:crypto';
import { OPERATIONS, buildEvent } from '@aff/contracts';
import type { CreateLinkBody, LinkView, Paginated, UpdateLinkBody } from '@aff/contracts';
import { AppError, errors, paginate, type PageRequest } from '@aff/api';
import type { AffiliateRecord, LinkRecord } from './records';
import { generateLinkToken } from './link-token';
import { toLinkView } from './views';
import {
  DuplicateError,
  type AffiliateStore,
  type CallContext,
  type CampaignStore,
  type LinkFilters,
  type LinkStore,
} from './ports';

/** A link whose affiliate was never written (the process died in between) is reclaimable after this. */
const ORPHAN_AFTER_MS = 60_000;
const TOKEN_TAKEN = 'Token has already been taken';
const CREATE_FAILED = OPERATIONS.createLink.invalid;
const UPDATE_FAILED = OPERATIONS.updateLink.invalid;
/** Concurrent updates of one link: each retries on the newer version this many times. */
const UPDATE_ATTEMPTS = 5;

export class LinkUseCases {
  constructor(
    private readonly links: LinkStore,
    private readonly affiliates: AffiliateStore,
    private readonly campaigns: CampaignStore,
  ) {}

  /**
   * Writes the first link before its affiliate (the unique index guards the token). If the
   * affiliate write never happens the link is an orphan, released or reclaimed later.
   */
  async reserve(merchantId: string, affiliateId: string, token: string): Promise<LinkRecord> {
    const record = newLinkRecord(merchantId, affiliateId, token);
    try {
      return await this.links.insert(record);
    } catch (error) {
      if (!(error instanceof DuplicateError)) throw error;
      if (await this.findLiveByToken(merchantId, token)) {
        throw new AppError('unprocessable', TOKEN_TAKEN);
      }
      return await this.links.insert(record);
    }
  }

  async release(merchantId: string, linkId: string): Promise<void> {
    await this.links.deleteById(merchantId, linkId);
  }

  /** The link holding `token`, unless it is a stale orphan (which is then removed). */
  async findLiveByToken(merchantId: string, token: string): Promise<LinkRecord | null> {
    const link = await this.links.findByToken(merchantId, token);
    if (!link) return null;
    const owner = await this.affiliates.findById(merchantId, link.affiliate_id);
    if (owner) return link;
    if (Date.now() - new Date(link.created_at).getTime() < ORPHAN_AFTER_MS) return link;
    await this.links.deleteById(merchantId, link._id);
    return null;
  }

  /** `input`: the request body, checked against the contract map's schema. */
  async create(ctx: CallContext, input: CreateLinkBody): Promise<LinkView> {
    const affiliate = await this.affiliates.findById(ctx.merchantId, input.affiliate_id);
    if (!affiliate) throw errors.invalid(CREATE_FAILED, ['Affiliate does not exist']);
    const id = ctx.newId('affiliate_link');
    // A re-run of a request whose answer was lost (same Idempotency-Key): answer what it made.
    const made = ctx.mayBeRerun ? await this.links.findById(ctx.merchantId, id) : null;
    if (made) return toLinkView(made, await this.campaignUrl(affiliate));
    const token = input.token ?? generateLinkToken(affiliate.first_name);
    if (await this.findLiveByToken(ctx.merchantId, token)) {
      throw errors.invalid(CREATE_FAILED, [TOKEN_TAKEN]);
    }
    const record = {
      ...newLinkRecord(ctx.merchantId, affiliate._id, token, id),
      url: input.url ?? null,
    };
    const view = toLinkView(record, await this.campaignUrl(affiliate));
    try {
      await this.links.insertWithEvents(
        record,
        [buildEvent('affiliate_link.created', ctx.merchantId, view)],
        ctx.events,
      );
      return view;
    } catch (error) {
      if (error instanceof DuplicateError) throw errors.invalid(CREATE_FAILED, [TOKEN_TAKEN]);
      throw error;
    }
  }

  /**
   * `PUT /v1/affiliate_links/:id` (`token`, `url`). The same rules as create; a new token frees
   * the old one at once, and `affiliate_link.updated` tells tracking which token now resolves.
   */
  async update(ctx: CallContext, id: string, input: UpdateLinkBody): Promise<LinkView> {
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const link = await this.links.findById(ctx.merchantId, id);
      const affiliate = link && (await this.affiliates.findById(ctx.merchantId, link.affiliate_id));
      if (!link || !affiliate) throw errors.notFound('Affiliate link', id);
      const token = input.token ?? link.token;
      // Blank clears the landing page (back to the campaign's URL); absent keeps it.
      const url = input.url === undefined ? (link.url ?? null) : input.url;
      if (token !== link.token) {
        const holder = await this.findLiveByToken(ctx.merchantId, token);
        if (holder && holder._id !== link._id) throw errors.invalid(UPDATE_FAILED, [TOKEN_TAKEN]);
      }
      // Strictly later than the version it replaces: read models keep the newest by updated_at.
      const updatedAt = new Date(Math.max(Date.now(), new Date(link.updated_at).getTime() + 1));
      const next = { ...link, token, url, updated_at: updatedAt };
      const view = toLinkView(next, await this.campaignUrl(affiliate));
      try {
        const updated = await this.links.updateWithEvents(
          ctx.merchantId,
          id,
          { token, url, updated_at: updatedAt },
          [buildEvent('affiliate_link.updated', ctx.merchantId, view)],
          ctx.events,
          { updated_at: link.updated_at },
        );
        if (!updated) continue; // changed meanwhile: decide again on the newer version
        return view;
      } catch (error) {
        if (error instanceof DuplicateError) throw errors.invalid(UPDATE_FAILED, [TOKEN_TAKEN]);
        throw error;
      }
    }
    throw new AppError('unavailable', `Affiliate link ${id} is changing too often; try again`);
  }

  async get(ctx: CallContext, id: string): Promise<LinkView> {
    const link = await this.links.findById(ctx.merchantId, id);
    const affiliate = link && (await this.affiliates.findById(ctx.merchantId, link.affiliate_id));
    if (!link || !affiliate) throw errors.notFound('Affiliate link', id);
    return toLinkView(link, await this.campaignUrl(affiliate));
  }

  async list(
    ctx: CallContext,
    filters: { token?: string; affiliate_id?: string },
    page: PageRequest,
  ): Promise<Paginated<LinkView>> {
    const query: LinkFilters = {};
    if (filters.token) query.token = filters.token;
    if (filters.affiliate_id) query.affiliate_id = filters.affiliate_id;
    const result = await this.links.page(ctx.merchantId, query, page.skip, page.limit);
    const affiliateIds = [...new Set(result.items.map((l) => l.affiliate_id))];
    const owners = await this.affiliates.findByIds(ctx.merchantId, affiliateIds);
    const campaignIds = [...new Set(owners.map((a) => a.campaign_id))];
    const campaigns = await this.campaigns.findByIds(ctx.merchantId, campaignIds);
    const urlByCampaign = new Map(campaigns.map((c) => [c._id, c.url]));
    const urlByAffiliate = new Map(
      owners.map((a) => [a._id, urlByCampaign.get(a.campaign_id) ?? '']),
    );
    const views = result.items.map((link) =>
      toLinkView(link, urlByAffiliate.get(link.affiliate_id) ?? ''),
    );
    return paginate(views, result.total, page);
  }

  private async campaignUrl(affiliate: AffiliateRecord): Promise<string> {
    const campaign = await this.campaigns.findById(affiliate.merchant_id, affiliate.campaign_id);
    return campaign?.url ?? '';
  }
}

function newLinkRecord(
  merchantId: string,
  affiliateId: string,
  token: string,
  id: string = randomUUID(),
): LinkRecord {
  const now = new Date();
  return {
    _id: id,
    merchant_id: merchantId,
    affiliate_id: affiliateId,
    token,
    visitors: 0,
    leads: 0,
    conversions: 0,
    created_at: now,
    updated_at: now,
  };
}
