/**
 * What the use cases need from the outside world, in domain terms, so they stay free of I/O
 * details. data/ implements these with MongoDB and in-memory read models; the domain never sees
 * a query or a driver error.
 */
import { DuplicateError, type Page } from '@aff/api';
import type {
  AffiliateView,
  ConversionState,
  CouponView,
  ReviewState,
  EventEnvelope,
  LinkView,
  ReferralHistory,
} from '@aff/contracts';
import type { EventContext } from '@aff/messaging';
import type {
  KnownAffiliate,
  KnownCampaign,
  KnownCoupon,
  KnownLink,
  LinkCounts,
  ReferralRecord,
} from './records';

/** The shared repository vocabulary (libs/api), re-exported for this domain's ports. */
export { DuplicateError, type Page };

/** The one call context of every service (libs/messaging). */
export type { CallContext } from '@aff/messaging';

/**
 * Asks the affiliate service (the owner) about a link token or coupon code this service has not
 * heard of yet (its catalog events are still on their way). Null: the owner does not know it
 * either.
 */
export interface AffiliateDirectory {
  resolveToken(
    merchantId: string,
    token: string,
  ): Promise<{ link: LinkView; affiliate: AffiliateView } | null>;
  resolveCouponCode(
    merchantId: string,
    code: string,
  ): Promise<{ coupon: CouponView; affiliate: AffiliateView } | null>;
}

/** The filters of `GET /v1/referrals`, already checked. Updated bounds are exclusive. */
export interface ReferralFilters {
  affiliate_id?: string;
  conversion_states?: ConversionState[];
  email?: string;
  processor_customer_id?: string;
  updated_since?: Date;
  updated_until?: Date;
  flagged?: boolean;
  review_state?: ReviewState;
}

export interface ReferralChange {
  /** Only write while the stored referral still has these values (null when it no longer does). */
  expected?: Partial<ReferralRecord>;
  /** Visits to add in the same write. */
  addVisits?: number;
  /**
   * What the write adds to the counts of the referral's link, affiliate and coupon: counted
   * exactly once if the write applied, even across a crash (data/referral-tallies.ts).
   */
  counts?: { referral: CountedReferral; delta: LinkCounts };
  /**
   * A processor event this write applies: the write happens only while the referral does not
   * list it yet, and lists it (domain/attribution.ts).
   */
  applies?: string;
}

/** What identifies whose counts a referral's writes change. */
export type CountedReferral = Pick<
  ReferralRecord,
  '_id' | 'merchant_id' | 'link_id' | 'affiliate_id' | 'coupon_id'
>;

/**
 * Referrals. Writes carry their events in the same document write (the outbox) and the store
 * relays them afterwards; a crash in between leaves them for the outbox sweep. Writes may throw
 * `DuplicateError`.
 */
export interface ReferralStore {
  findById(merchantId: string, id: string): Promise<ReferralRecord | null>;
  findByCustomer(merchantId: string, processorCustomerId: string): Promise<ReferralRecord | null>;
  /** Newest first. */
  page(
    merchantId: string,
    filters: ReferralFilters,
    skip: number,
    limit: number,
  ): Promise<Page<ReferralRecord>>;
  /**
   * Inserts a referral whose events the caller publishes itself (intake); false when it is
   * there already (a redelivery, or a reader that wrote it first).
   */
  insertIfAbsent(record: ReferralRecord): Promise<boolean>;
  /**
   * Counts a stored referral in its merchant's list (count and newest ids) unless it is counted
   * already: a writer that died between its insert and the count left it out of the list, and
   * the redelivered visit finds it stored (idempotent).
   */
  countIfMissed(record: ReferralRecord): Promise<void>;
  insertWithEvents(
    record: ReferralRecord,
    events: EventEnvelope[],
    context: EventContext,
  ): Promise<void>;
  /** False when the referral no longer matches `change.expected` (or is gone). */
  updateWithEvents(
    merchantId: string,
    id: string,
    changes: Partial<ReferralRecord>,
    events: EventEnvelope[],
    context: EventContext,
    change?: ReferralChange,
  ): Promise<boolean>;
}

/** The read models of the affiliate service's links, affiliates, campaigns and coupons. */
export interface CatalogStore {
  linkByToken(merchantId: string, token: string): Promise<KnownLink | null>;
  linksByIds(merchantId: string, ids: string[]): Promise<KnownLink[]>;
  firstLinkOf(merchantId: string, affiliateId: string): Promise<KnownLink | null>;
  affiliate(merchantId: string, id: string): Promise<KnownAffiliate | null>;
  affiliatesByIds(merchantId: string, ids: string[]): Promise<KnownAffiliate[]>;
  campaign(merchantId: string, id: string): Promise<KnownCampaign | null>;
  couponByCode(merchantId: string, code: string): Promise<KnownCoupon | null>;
  saveAffiliate(merchantId: string, view: AffiliateView): Promise<void>;
  saveLink(merchantId: string, link: LinkView): Promise<void>;
  saveCoupon(merchantId: string, coupon: CouponView): Promise<void>;
}

/** Visitors, leads and conversions per link (kept in memory by the implementation). */
export interface LinkCountsReader {
  get(merchantId: string, linkId: string): Promise<LinkCounts>;
}

/** The merchant's visitors, leads and conversions to date (its kept count document). */
export interface ReferralTotalsReader {
  merchantTotals(merchantId: string): Promise<LinkCounts>;
}

/** The merchant's visitors, leads and conversions at each of the last `days` UTC midnights. */
export interface ReferralHistoryReader {
  atMidnights(merchantId: string, days: number): Promise<ReferralHistory['midnights']>;
}

/** Applies a processor event at most once per consumer (the record of applied events). */
export interface AppliedEvents {
  /** `apply` answers `'recorded'` when its own write recorded the event (no record needed). */
  once(
    consumer: string,
    eventId: string,
    apply: () => Promise<void | 'recorded'>,
  ): Promise<boolean>;
}

/** A visit accepted by intake, its referral not necessarily written yet. */
export interface AcceptedVisit {
  record: ReferralRecord;
  /** The visit request's trace and request id, for the events its referral publishes. */
  context: EventContext;
}

/**
 * Durable-first visit intake: a new visit's referral is queued durably and written in batches
 * by the intake consumer, so the visit's answer waits for one durable append, not the database.
 */
export interface VisitQueue {
  submit(record: ReferralRecord, context: EventContext): Promise<void>;
  /** An accepted visit of this merchant whose referral may not be written yet. */
  find(merchantId: string, referralId: string): Promise<AcceptedVisit | null>;
  /** Resolves once every visit accepted before the call is written (or after `timeoutMs`). */
  drained(timeoutMs: number): Promise<void>;
}
