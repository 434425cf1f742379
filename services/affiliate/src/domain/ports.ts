/**
 * What the use cases need from the outside world, in domain terms, so they stay free of I/O
 * details. data/ implements these with MongoDB; the domain never sees a query or a driver error.
 */
import { DuplicateError, type Page } from '@aff/api';
import type { CommissionStats, EventEnvelope } from '@aff/contracts';
import type { EventContext } from '@aff/messaging';
import type {
  AffiliateRecord,
  CampaignRecord,
  CouponRecord,
  EmailConfirmationRecord,
  LinkRecord,
  SsoTokenRecord,
  WalletConfirmationRecord,
} from './records';

/** The shared repository vocabulary (libs/api), re-exported for this domain's ports. */
export { DuplicateError, type Page };

/** Who is asking: the tenant, and the trace/request context events should carry. */
/** The one call context of every service (libs/messaging). */
export type { CallContext } from '@aff/messaging';

/**
 * Writes that carry events store them with the record in one document write (the outbox) and
 * the store relays them afterwards; a crash in between leaves them for the outbox sweep.
 * Every write may throw `DuplicateError`. `expected` (field → value) makes an update
 * conditional: null when the record no longer matches (or does not exist).
 */
export interface OutboxStore<T> {
  findById(merchantId: string, id: string): Promise<T | null>;
  insertWithEvents(record: T, events: EventEnvelope[], context: EventContext): Promise<T>;
  updateWithEvents(
    merchantId: string,
    id: string,
    changes: Partial<T>,
    events: EventEnvelope[],
    context: EventContext,
    expected?: Partial<T>,
  ): Promise<T | null>;
}

/** A record's referral counters as tracking counted them (coupons have no `visitors`). */
export interface CountRow {
  id: string;
  visitors?: number;
  leads: number;
  conversions: number;
}

/** A store whose records carry referral counters, raised only (`$max`). */
export interface CountedStore {
  raiseCounts(merchantId: string, rows: CountRow[]): Promise<void>;
}

export interface AffiliateFilters {
  campaign_id?: string;
  email?: string;
  processor_customer_id?: string;
  state?: string;
  /** Part of the first or last name, any case (the console's search). */
  name?: string;
}

export interface AffiliateStore extends OutboxStore<AffiliateRecord>, CountedStore {
  /**
   * `findById` for consumers handling many events at once: look-ups made together share one
   * read, and callers asking for the same affiliate share one record, so treat it as read-only.
   */
  findByIdBatched(merchantId: string, id: string): Promise<AffiliateRecord | null>;
  findByIds(merchantId: string, ids: string[]): Promise<AffiliateRecord[]>;
  /** The affiliate holding `email`, other than `exceptId`. */
  findByEmail(
    merchantId: string,
    email: string,
    exceptId?: string,
  ): Promise<AffiliateRecord | null>;
  findByProcessorCustomer(merchantId: string, customerId: string): Promise<AffiliateRecord | null>;
  /** Newest first. */
  page(
    merchantId: string,
    filters: AffiliateFilters,
    skip: number,
    limit: number,
  ): Promise<Page<AffiliateRecord>>;
  countSignIn(merchantId: string, id: string): Promise<void>;
}

export interface CampaignStore extends OutboxStore<CampaignRecord> {
  findByIds(merchantId: string, ids: string[]): Promise<CampaignRecord[]>;
  findDefault(merchantId: string): Promise<CampaignRecord | null>;
  page(merchantId: string, skip: number, limit: number): Promise<Page<CampaignRecord>>;
}

export interface LinkFilters {
  token?: string;
  affiliate_id?: string;
}

export interface LinkStore extends OutboxStore<LinkRecord>, CountedStore {
  findByToken(merchantId: string, token: string): Promise<LinkRecord | null>;
  /** Newest first, at most `limit`. */
  findByAffiliates(
    merchantId: string,
    affiliateIds: string[],
    limit: number,
  ): Promise<LinkRecord[]>;
  page(
    merchantId: string,
    filters: LinkFilters,
    skip: number,
    limit: number,
  ): Promise<Page<LinkRecord>>;
  /** A write without events (a reserved first link). May throw `DuplicateError`. */
  insert(record: LinkRecord): Promise<LinkRecord>;
  deleteById(merchantId: string, id: string): Promise<void>;
}

export interface CouponStore extends OutboxStore<CouponRecord>, CountedStore {
  findByCode(merchantId: string, code: string): Promise<CouponRecord | null>;
  page(
    merchantId: string,
    filters: { affiliate_id?: string },
    skip: number,
    limit: number,
  ): Promise<Page<CouponRecord>>;
}

/** Single-use links keyed by affiliate id (a newer one replaces the older), stored by hash. */
export interface OneTimeTokenStore<T extends { token_hash: string }> {
  replace(record: T): Promise<void>;
  /** Marks the live, unexpired token with this hash used at `now`; null when there is none. */
  claim(tokenHash: string, now: Date): Promise<T | null>;
}
export type SsoTokenStore = OneTimeTokenStore<SsoTokenRecord>;
export type EmailConfirmationStore = OneTimeTokenStore<EmailConfirmationRecord>;
export type WalletConfirmationStore = OneTimeTokenStore<WalletConfirmationRecord>;

/**
 * `commission_stats`, kept by the commission service with its commissions and sales, and asked
 * for over NATS (docs/decisions.md, "Commission stats kept by the commission service").
 */
export interface CommissionStatsSource {
  /** Every id asked for is answered (`{currencies: {}}` for an affiliate with none). */
  ofAffiliates(merchantId: string, ids: string[]): Promise<Record<string, CommissionStats>>;
  /** Over every affiliate of the merchant, currencies sorted by code. */
  merchantTotals(merchantId: string): Promise<CommissionStats>;
}
