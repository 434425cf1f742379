/**
 * What the portal reads and writes, through the same service operations the REST API uses.
 * Every call is scoped by the session: its merchant, and its affiliate id as the filter, never
 * an id the browser sent. Single records are checked to belong to the session's affiliate.
 */
import { OPERATIONS } from '@aff/contracts';
import type {
  AffiliateView,
  CommissionView,
  OperationMap,
  Paginated,
  PayoutView,
  RpcReply,
  ReferralView,
} from '@aff/contracts';
import { AppError } from '@aff/api';
import type { RpcClient } from '@aff/messaging';
import type { z } from 'zod';
import type { PortalSession } from './portal-sessions';

/** The operations of the contract map the portal calls, answered by their owning service. */
type PortalOperation =
  | 'getAffiliate'
  | 'updateAffiliate'
  | 'listReferrals'
  | 'listCommissions'
  | 'getCommission'
  | 'listPayouts'
  | 'getPayout';
/** What a 200 of the operation carries, as its entry's response schema states it. */
type ReplyOf<K extends PortalOperation> = z.output<OperationMap[K]['response']['body']>;

interface Call {
  params?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
  expand?: string[];
}

/** A non-200 answer the page shows as it is (status and message). */
export class PortalReplyError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: string[] = [],
  ) {
    super(message);
  }
}

const PAGE_CAP = 20;

export class PortalData {
  constructor(
    private readonly rpc: RpcClient,
    private readonly session: PortalSession,
    private readonly requestId: string,
  ) {}

  async affiliate(): Promise<AffiliateView> {
    return this.ok('getAffiliate', { params: { id: this.session.affiliateId } });
  }

  async referrals(query: Record<string, unknown>): Promise<Paginated<ReferralView>> {
    return this.ok('listReferrals', { query: this.scoped(query) });
  }

  async commissions(query: Record<string, unknown>): Promise<Paginated<CommissionView>> {
    return this.ok('listCommissions', { query: this.scoped(query) });
  }

  async payouts(query: Record<string, unknown>): Promise<Paginated<PayoutView>> {
    return this.ok('listPayouts', { query: this.scoped(query) });
  }

  /** Every page of a list (up to a cap), for totals; `complete` says whether the cap was hit. */
  async all<T>(
    list: (query: Record<string, unknown>) => Promise<Paginated<T>>,
    query: Record<string, unknown> = {},
  ): Promise<{ items: T[]; complete: boolean }> {
    const items: T[] = [];
    for (let page = 1; page <= PAGE_CAP; page++) {
      const result = await list.call(this, { ...query, page: String(page), limit: '100' });
      items.push(...result.data);
      if (page >= result.pagination.total_pages) return { items, complete: true };
    }
    return { items, complete: false };
  }

  /** A payout of this affiliate, or null (another affiliate's id looks like an unknown one). */
  async payout(id: string): Promise<PayoutView | null> {
    const payout = await this.maybe('getPayout', { params: { id } });
    return payout?.affiliate?.id === this.session.affiliateId ? payout : null;
  }

  async commission(id: string): Promise<CommissionView | null> {
    const commission = await this.maybe('getCommission', { params: { id } });
    return commission?.sale?.affiliate.id === this.session.affiliateId ? commission : null;
  }

  async updateSettings(body: Record<string, string>): Promise<AffiliateView> {
    return this.ok('updateAffiliate', {
      params: { id: this.session.affiliateId },
      body,
    });
  }

  /** The affiliate filter always comes from the session, whatever the query says. */
  private scoped(query: Record<string, unknown>): Record<string, unknown> {
    return { ...query, affiliate_id: this.session.affiliateId };
  }

  private async maybe<K extends PortalOperation>(
    operation: K,
    call: Call,
  ): Promise<ReplyOf<K> | null> {
    const reply = await this.send(operation, call);
    if (reply.status === 404 || reply.status === 400) return null;
    return this.unwrap<ReplyOf<K>>(reply);
  }

  private async ok<K extends PortalOperation>(operation: K, call: Call): Promise<ReplyOf<K>> {
    return this.unwrap<ReplyOf<K>>(await this.send(operation, call));
  }

  /** To the operation's owner, as the gateway forwards a REST call (same envelope and checks). */
  private send(operation: PortalOperation, call: Call): Promise<RpcReply> {
    return this.rpc.call(
      OPERATIONS[operation].owner,
      operation,
      {
        merchant_id: this.session.merchantId,
        params: call.params ?? {},
        query: call.query ?? {},
        body: call.body ?? {},
        expand: call.expand ?? [],
        api_key_id: null,
      },
      this.requestId,
    );
  }

  /** A 200's body is what the service answered for the entry (its handler is typed by it). */
  private unwrap<T>(reply: RpcReply): T {
    if (reply.status === 200) return reply.body as T;
    const body = (reply.body ?? {}) as { error?: string; details?: string[] };
    if (reply.status >= 500)
      throw new AppError('unavailable', body.error ?? 'Service unavailable.');
    throw new PortalReplyError(reply.status, body.error ?? 'Request failed.', body.details ?? []);
  }
}
