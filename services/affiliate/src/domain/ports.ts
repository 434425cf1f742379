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
  CommissionFact,
  CouponRecord,
  EmailConfirmationRecord,
  LinkRecord,
  SaleFact,
  SsoTokenRecord,
  WalletConfirmationRecord,
} from './records';
import type { StatDelta } from './stat-deltas';

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

export type VersionedFactKind = 'commissions' | 'sales';
export type VersionedFact = CommissionFact | SaleFact;
/** A fact's next version as written (its id and merchant aside). */
export type VersionedFactFields =
  Omit<CommissionFact, '_id' | 'merchant_id'> | Omit<SaleFact, '_id' | 'merchant_id'>;

/** Affiliates' `commission_stats`, written by the affiliates' own repository. */
export interface AffiliateStatsStore {
  /** Adds a delta (concurrent calls may share one bulk write; each resolves once its own is done). */
  addStats(merchantId: string, affiliateId: string, changes: StatDelta): Promise<void>;
  setStats(merchantId: string, affiliateId: string, stats: CommissionStats): Promise<void>;
}

/** The facts behind `commission_stats`, and the statistics themselves (see derived-counters.ts). */
export interface CounterStore extends AffiliateStatsStore {
  findVersionedFact(
    kind: VersionedFactKind,
    merchantId: string,
    id: string,
  ): Promise<VersionedFact | null>;
  /**
   * Writes the next version of a fact: an insert when `before` is null, else an update only
   * while it still has `before`'s version. False when another writer got in first.
   */
  writeVersionedFact(
    kind: VersionedFactKind,
    merchantId: string,
    id: string,
    before: VersionedFact | null,
    next: VersionedFactFields,
  ): Promise<boolean>;
  findStatsFacts(merchantId: string, affiliateId: string): Promise<StatsFacts>;
  /** Facts marked pending since before `olderThan` (at most `limit` of each kind). */
  findStale(
    olderThan: Date,
    limit: number,
  ): Promise<{ commissions: CommissionFact[]; sales: SaleFact[] }>;
  /** Clears the mark, but only if it is still `marker`. */
  unmark(kind: VersionedFactKind, id: string, marker: Date): Promise<void>;
}

export interface StatsFacts {
  commissions: CommissionFact[];
  sales: SaleFact[];
}
