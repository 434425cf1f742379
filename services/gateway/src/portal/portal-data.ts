/**
 * What the portal reads and writes, through the same service operations the REST API uses.
 * Every call is scoped by the session: its merchant, and its affiliate id as the filter, never
 * an id the browser sent. Single records are checked to belong to the session's affiliate.
 */
import type {
  AffiliateView,
  CommissionView,
  Paginated,
  PayoutView,
  RpcReply,
  ReferralView,
  ServiceName,
} from '@aff/contracts';
import { AppError } from '@aff/api';
import type { RpcClient } from '@aff/messaging';
import type { PortalSession } from './portal-sessions';

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
    return this.ok('affiliate', 'getAffiliate', { params: { id: this.session.affiliateId } });
  }

  async referrals(query: Record<string, unknown>): Promise<Paginated<ReferralView>> {
    return this.ok('tracking', 'listReferrals', { query: this.scoped(query) });
  }

  async commissions(query: Record<string, unknown>): Promise<Paginated<CommissionView>> {
    return this.ok('commission', 'listCommissions', { query: this.scoped(query) });
  }

  async payouts(query: Record<string, unknown>): Promise<Paginated<PayoutView>> {
    return this.ok('payout', 'listPayouts', { query: this.scoped(query) });
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
    const payout = await this.maybe<PayoutView>('payout', 'getPayout', { params: { id } });
    return payout?.affiliate?.id === this.session.affiliateId ? payout : null;
  }

  async commission(id: string): Promise<CommissionView | null> {
    const commission = await this.maybe<CommissionView>('commission', 'getCommission', {
      params: { id },
    });
    return commission?.sale?.affiliate.id === this.session.affiliateId ? commission : null;
  }

  async updateSettings(body: Record<string, string>): Promise<AffiliateView> {
    return this.ok('affiliate', 'updateAffiliate', {
      params: { id: this.session.affiliateId },
      body,
    });
  }

  /** The affiliate filter always comes from the session, whatever the query says. */
  private scoped(query: Record<string, unknown>): Record<string, unknown> {
    return { ...query, affiliate_id: this.session.affiliateId };
  }

  private async maybe<T>(service: ServiceName, operation: string, call: Call): Promise<T | null> {
    const reply = await this.send(service, operation, call);
    if (reply.status === 404 || reply.status === 400) return null;
    return this.unwrap<T>(reply);
  }

  private async ok<T>(service: ServiceName, operation: string, call: Call): Promise<T> {
    return this.unwrap<T>(await this.send(service, operation, call));
  }

  private send(service: ServiceName, operation: string, call: Call): Promise<RpcReply> {
    return this.rpc.call(
      service,
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

  private unwrap<T>(reply: RpcReply): T {
    if (reply.status === 200) return reply.body as T;
    const body = (reply.body ?? {}) as { error?: string; details?: string[] };
    if (reply.status >= 500)
      throw new AppError('unavailable', body.error ?? 'Service unavailable.');
    throw new PortalReplyError(reply.status, body.error ?? 'Request failed.', body.details ?? []);
  }
}
