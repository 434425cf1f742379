/** Affiliate use cases: create (with its first link), update, read, list. */
import { OPERATIONS, buildEvent } from '@aff/contracts';
import type {
  AffiliateView,
  CreateAffiliateBody,
  LinkView,
  Paginated,
  UpdateAffiliateBody,
} from '@aff/contracts';
import { errors, isAppError, paginate, type PageRequest } from '@aff/api';
import type { AffiliateRecord, CampaignRecord, LinkRecord } from './records';
import type { AffiliatePresenter, AffiliateExpansion } from './affiliate-presenter';
import type { CampaignUseCases } from './campaigns';
import type { LinkUseCases } from './links';
import { generateLinkToken } from './link-token';
import { toAffiliateView, toCampaignView, toLinkView } from './views';
import { initialWallets, walletChanges } from './wallet-changes';
import {
  DuplicateError,
  type AffiliateFilters,
  type AffiliateStore,
  type CallContext,
} from './ports';

const CREATE_FAILED = OPERATIONS.createAffiliate.invalid;
const UPDATE_FAILED = OPERATIONS.updateAffiliate.invalid;

export type { AffiliateFilters };

export class AffiliateUseCases {
  constructor(
    private readonly affiliates: AffiliateStore,
    private readonly campaigns: CampaignUseCases,
    private readonly links: LinkUseCases,
    private readonly presenter: AffiliatePresenter,
  ) {}

  /** `value`: the request body, checked against the contract map's schema. */
  async create(ctx: CallContext, value: CreateAffiliateBody): Promise<AffiliateView> {
    const id = ctx.newId('affiliate');
    // A re-run of a request whose answer was lost (same Idempotency-Key): answer what it made.
    const made = ctx.mayBeRerun ? await this.affiliates.findById(ctx.merchantId, id) : null;
    if (made) return this.presenter.presentOne(ctx.merchantId, made);
    const campaign = await this.campaigns
      .resolveForAffiliate(ctx, value.campaign_id)
      .catch(rethrowAsInvalid(CREATE_FAILED));
    const token = value.token ?? generateLinkToken(value.first_name);
    const taken = await this.takenFields(ctx.merchantId, value, token);
    if (taken.length > 0) throw errors.invalid(CREATE_FAILED, taken);

    const record = newAffiliateRecord(id, ctx.merchantId, campaign._id, value);
    const link = await this.links
      .reserve(ctx.merchantId, record._id, token)
      .catch(rethrowAsInvalid(CREATE_FAILED));
    const view = this.viewOf(record, campaign, [link]);
    try {
      await this.affiliates.insertWithEvents(
        record,
        [
          buildEvent('affiliate.created', ctx.merchantId, view),
          buildEvent('affiliate_link.created', ctx.merchantId, view.links![0]!),
        ],
        ctx.events,
      );
      return view;
    } catch (error) {
      await this.links.release(ctx.merchantId, link._id);
      if (error instanceof DuplicateError) {
        throw errors.invalid(CREATE_FAILED, await this.takenFields(ctx.merchantId, value, null));
      }
      throw error;
    }
  }

  async update(
    ctx: CallContext,
    id: string,
    value: UpdateAffiliateBody,
    attempt = 1,
  ): Promise<AffiliateView> {
    const current = await this.getRecord(ctx, id);
    const now = new Date();
    const set: Partial<AffiliateRecord> = { updated_at: now };
    if (value.first_name) set.first_name = value.first_name;
    if (value.last_name) set.last_name = value.last_name;
    // A state change applies only over the state read (the merchant's count by state moves
    // exactly this affiliate); a concurrent change of it makes this update read again.
    const expected = value.state && value.state !== current.state ? { state: current.state } : {};
    if (expected.state) set.state = value.state;
    const wallets = walletChanges(
      current,
      { a: value.wallet_a_email, b: value.wallet_b_email },
      now,
    );
    Object.assign(set, wallets.set);
    if (value.receive_new_commission_notifications !== undefined)
      set.receive_new_commission_notifications = value.receive_new_commission_notifications;
    if (value.fraud_exempt !== undefined) set.fraud_exempt = value.fraud_exempt;
    if (value.campaign_id) {
      const campaign = await this.campaigns
        .resolveForAffiliate(ctx, value.campaign_id)
        .catch(rethrowAsInvalid(UPDATE_FAILED));
      set.campaign_id = campaign._id;
    }
    if (value.email && value.email !== current.email) {
      // The address changes only once its owner confirms it (see docs/affiliates.md).
      const owner = await this.affiliates.findByEmail(ctx.merchantId, value.email);
      if (owner) throw errors.invalid(UPDATE_FAILED, ['Email has already been taken']);
      set.unconfirmed_email = value.email;
    }
    const next = { ...current, ...set };
    const view = await this.presenter.presentOne(ctx.merchantId, next);
    // Queued in the same write as the change, so the confirmation mail cannot be lost.
    const requested = [
      ...(set.unconfirmed_email
        ? [
            buildEvent('affiliate.email_change_requested', ctx.merchantId, {
              affiliate_id: id,
              email: set.unconfirmed_email,
            }),
          ]
        : []),
      ...wallets.requests.map((r) =>
        buildEvent('affiliate.wallet_change_requested', ctx.merchantId, {
          affiliate_id: id,
          ...r,
        }),
      ),
    ];
    const updated = await this.affiliates.updateWithEvents(
      ctx.merchantId,
      id,
      set,
      [buildEvent('affiliate.updated', ctx.merchantId, view), ...requested],
      ctx.events,
      expected,
    );
    if (!updated && expected.state && attempt < 5) return this.update(ctx, id, value, attempt + 1);
    if (!updated) throw errors.notFound('Affiliate', id);
    return view;
  }

  async get(ctx: CallContext, id: string): Promise<AffiliateView> {
    return this.presenter.presentOne(ctx.merchantId, await this.getRecord(ctx, id));
  }

  async list(
    ctx: CallContext,
    filters: AffiliateFilters,
    page: PageRequest,
    expand: ReadonlySet<AffiliateExpansion>,
  ): Promise<Paginated<AffiliateView>> {
    const query: AffiliateFilters = {};
    if (filters.campaign_id) query.campaign_id = filters.campaign_id;
    if (filters.email) query.email = filters.email.trim().toLowerCase();
    if (filters.processor_customer_id) query.processor_customer_id = filters.processor_customer_id;
    if (filters.state) query.state = filters.state;
    if (filters.name) query.name = filters.name;
    const result = await this.affiliates.page(ctx.merchantId, query, page.skip, page.limit);
    const views = await this.presenter.present(ctx.merchantId, result.items, expand);
    return paginate(views, result.total, page);
  }

  /** For the tracking service: what a link token stands for (404 when unknown). */
  async resolveToken(
    ctx: CallContext,
    token: string,
  ): Promise<{ link: LinkView; affiliate: AffiliateView }> {
    const link = await this.links.findLiveByToken(ctx.merchantId, token);
    const record = link && (await this.affiliates.findById(ctx.merchantId, link.affiliate_id));
    if (!link || !record) throw errors.notFound('Link', token);
    const affiliate = await this.presenter.presentOne(ctx.merchantId, record);
    const linkView = affiliate.links?.find((l) => l.id === link._id);
    if (!linkView) throw errors.notFound('Link', token);
    return { link: linkView, affiliate };
  }

  async getRecord(ctx: CallContext, id: string): Promise<AffiliateRecord> {
    const record = await this.affiliates.findById(ctx.merchantId, id);
    if (!record) throw errors.notFound('Affiliate', id);
    return record;
  }

  private async takenFields(
    merchantId: string,
    value: CreateAffiliateBody,
    token: string | null,
  ): Promise<string[]> {
    const [email, customer, link] = await Promise.all([
      this.affiliates.findByEmail(merchantId, value.email),
      value.processor_customer_id
        ? this.affiliates.findByProcessorCustomer(merchantId, value.processor_customer_id)
        : null,
      token ? this.links.findLiveByToken(merchantId, token) : null,
    ]);
    return [
      ...(email ? ['Email has already been taken'] : []),
      ...(customer ? ['Processor customer has already been taken'] : []),
      ...(link ? ['Token has already been taken'] : []),
    ];
  }

  private viewOf(record: AffiliateRecord, campaign: CampaignRecord, links: LinkRecord[]) {
    return toAffiliateView(record, {
      campaign: toCampaignView(campaign),
      links: links.map((link) => toLinkView(link, campaign.url)),
    });
  }
}

function newAffiliateRecord(
  id: string,
  merchantId: string,
  campaignId: string,
  value: CreateAffiliateBody,
): AffiliateRecord {
  const now = new Date();
  return {
    _id: id,
    merchant_id: merchantId,
    campaign_id: campaignId,
    state: value.state ?? 'active',
    first_name: value.first_name,
    last_name: value.last_name,
    email: value.email,
    // Affiliates created through the API need no e-mail confirmation (spec).
    confirmed_at: now,
    unconfirmed_email: null,
    ...initialWallets(value, now),
    receive_new_commission_notifications: value.receive_new_commission_notifications ?? true,
    sign_in_count: 0,
    processor_customer_id: value.processor_customer_id ?? null,
    customer_key: value.processor_customer_id
      ? `customer:${value.processor_customer_id}`
      : `none:${id}`,
    processor_account_id: null,
    visitors: 0,
    leads: 0,
    conversions: 0,
    created_at: now,
    updated_at: now,
  };
}

/** A lookup that failed with a single message becomes part of the create/update 422 body. */
function rethrowAsInvalid(message: string) {
  return (error: unknown): never => {
    if (isAppError(error) && error.status === 422 && !error.details) {
      throw errors.invalid(message, [error.message]);
    }
    throw error;
  };
}
