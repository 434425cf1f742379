/**
 * Asks the commission service for `commission_stats` over NATS: it keeps them with its own
 * commission and sale writes (one merged `$inc` per write batch), so this service keeps no copy
 * (docs/decisions.md, "Commission stats kept by the commission service").
 */
import { randomUUID } from 'node:crypto';
import type { CommissionStats } from '@aff/contracts';
import { OPERATIONS } from '@aff/contracts';
import { callInternal, type RpcClient } from '@aff/messaging';
import type { CommissionStatsSource } from './domain/ports';

/** At most this many ids per request (the operation's limit). */
const IDS_PER_CALL = 1000;

export class RpcCommissionStats implements CommissionStatsSource {
  constructor(private readonly rpc: RpcClient) {}

  async ofAffiliates(merchantId: string, ids: string[]): Promise<Record<string, CommissionStats>> {
    const unique = [...new Set(ids)];
    const parts: Record<string, CommissionStats>[] = [];
    for (let i = 0; i < unique.length; i += IDS_PER_CALL) {
      const reply = await callInternal(
        this.rpc,
        OPERATIONS.getAffiliateCommissionStats,
        { merchant_id: merchantId, affiliate_ids: unique.slice(i, i + IDS_PER_CALL) },
        randomUUID(),
      );
      parts.push(reply.stats);
    }
    return Object.assign({}, ...parts) as Record<string, CommissionStats>;
  }

  async merchantTotals(merchantId: string): Promise<CommissionStats> {
    const reply = await callInternal(
      this.rpc,
      OPERATIONS.getCommissionTotals,
      { merchant_id: merchantId },
      randomUUID(),
    );
    return reply.commission_stats;
  }
}
