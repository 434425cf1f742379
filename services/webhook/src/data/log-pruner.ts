/**
 * Retention of the delivery log: deliveries that finished (delivered or failed) before the
 * cut-off are deleted with their attempts; pending deliveries are never touched, however old.
 *
 * Every query has exactly the fields of an index, so mongo-java-server (whose planner uses an
 * index only then, docs/local-database.md) never scans a whole collection:
 * - candidates per endpoint: `{merchant_id, endpoint_id, created_at}` (the log's own index),
 *   created before the cut-off, in pages by `created_at`; a delivery finishes after it is
 *   created, so nothing finished before the cut-off was created after it;
 * - their attempts: `{merchant_id, delivery_id, started_at}`; an attempt of a delivery that
 *   finished before the cut-off started before it;
 * - the deliveries: `{_id, merchant_id}` (the tenant index).
 * Attempts go first, so an interrupted prune leaves deliveries without attempts (deleted by the
 * next prune), never attempts without their delivery. Replicas may prune at once: deleting
 * twice is harmless.
 */
import type { Model } from 'mongoose';
import { ScopedRepository } from '@aff/mongo';
import type { AttemptRecord, DeliveryRecord } from '../domain/records';
import type { DeliveryDoc } from './delivery.schema';
import type { EndpointDoc } from './endpoint.schema';

const PAGE = 500;

export interface PruneResult {
  deliveries: number;
  attempts: number;
}

type Candidate = Pick<DeliveryRecord, '_id' | 'state' | 'created_at' | 'updated_at'>;

export class LogPruner {
  private readonly deliveries: ScopedRepository<DeliveryDoc>;
  private readonly attempts: ScopedRepository<AttemptRecord>;

  constructor(
    private readonly endpoints: Model<EndpointDoc>,
    deliveries: Model<DeliveryDoc>,
    attempts: Model<AttemptRecord>,
  ) {
    this.deliveries = new ScopedRepository(deliveries);
    this.attempts = new ScopedRepository(attempts);
  }

  /** Deletes what finished before `cutoff`. */
  async prune(cutoff: Date): Promise<PruneResult> {
    const total: PruneResult = { deliveries: 0, attempts: 0 };
    // Endpoints of every merchant: few (a handful per merchant); deliveries of deleted ones went
    // with them.
    const endpoints = await this.endpoints
      .find({}, { _id: 1, merchant_id: 1 })
      .lean<Pick<EndpointDoc, '_id' | 'merchant_id'>[]>()
      .exec();
    for (const endpoint of endpoints) {
      const pruned = await this.pruneEndpoint(endpoint.merchant_id, endpoint._id, cutoff);
      total.deliveries += pruned.deliveries;
      total.attempts += pruned.attempts;
    }
    return total;
  }

  private async pruneEndpoint(
    merchantId: string,
    endpointId: string,
    cutoff: Date,
  ): Promise<PruneResult> {
    const total: PruneResult = { deliveries: 0, attempts: 0 };
    let after: Date | null = null;
    for (;;) {
      const createdAt: Record<string, Date> = { $lt: cutoff };
      if (after) createdAt.$gte = after;
      const page = await this.deliveries.find<Candidate>(
        merchantId,
        { endpoint_id: endpointId, created_at: createdAt },
        {
          projection: { _id: 1, state: 1, created_at: 1, updated_at: 1 },
          sort: { created_at: 1, _id: 1 },
          limit: PAGE,
        },
      );
      const ids = page
        .filter((d) => d.state !== 'pending' && new Date(d.updated_at) < cutoff)
        .map((d) => d._id);
      if (ids.length > 0) {
        total.attempts += await this.attempts.deleteMany(merchantId, {
          delivery_id: { $in: ids },
          started_at: { $lt: cutoff },
        });
        total.deliveries += await this.deliveries.deleteMany(merchantId, { _id: { $in: ids } });
      }
      if (page.length < PAGE) return total;
      const last = new Date(page.at(-1)!.created_at);
      // Pending ones stay behind; a page of only those must not be read again forever.
      if (ids.length === 0 && after && last.getTime() === after.getTime()) return total;
      after = last;
    }
  }
}
