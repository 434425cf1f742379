/**
 * The endpoints' store over MongoDB (the domain's `EndpointStore`). Writes that carry events
 * (an automatic disabling) store them in the endpoint's own outbox with the change, and the
 * tenant repository hands them to the relay; the outbox sweep relays whatever a crash left
 * behind.
 */
import type { Model } from 'mongoose';
import type { EventEnvelope } from '@aff/contracts';
import type { EventRelay } from '@aff/messaging';
import { TenantRepository, mapDuplicate } from '@aff/mongo';
import { type EndpointChanges, type EndpointStore, type Page } from '../domain/ports';
import type { EndpointRecord } from '../domain/records';
import type { EndpointDoc } from './endpoint.schema';

export class EndpointRepository implements EndpointStore {
  private readonly tenant: TenantRepository<EndpointDoc>;

  constructor(model: Model<EndpointDoc>, relay: EventRelay) {
    this.tenant = new TenantRepository(model, { relay });
  }

  async insert(record: EndpointRecord): Promise<EndpointRecord> {
    return (await mapDuplicate(this.tenant.insert(record), 'Webhook endpoint')).record;
  }

  findById(merchantId: string, id: string): Promise<EndpointRecord | null> {
    return this.tenant.findById(merchantId, id);
  }

  findEnabled(merchantId: string): Promise<EndpointRecord[]> {
    return this.tenant.findMany(merchantId, { enabled: true });
  }

  page(merchantId: string, skip: number, limit: number): Promise<Page<EndpointRecord>> {
    return this.tenant.page(merchantId, {}, skip, limit);
  }

  async update(
    merchantId: string,
    id: string,
    changes: EndpointChanges,
  ): Promise<EndpointRecord | null> {
    return (await this.tenant.update(merchantId, id, { $set: changes }))?.record ?? null;
  }

  async replaceSecret(
    merchantId: string,
    id: string,
    secret: string,
    changes: EndpointChanges,
  ): Promise<EndpointRecord | null> {
    const result = await this.tenant.updateIf(merchantId, id, { secret }, { $set: changes });
    return result?.record ?? null;
  }

  async startFailing(merchantId: string, id: string, at: Date): Promise<boolean> {
    const result = await this.tenant.updateIf(
      merchantId,
      id,
      { failing_since: null },
      { $set: { failing_since: at } },
    );
    return result !== null;
  }

  async disable(
    merchantId: string,
    id: string,
    changes: EndpointChanges,
    failingSince: Date,
    events: EventEnvelope[],
  ): Promise<boolean> {
    const result = await this.tenant.updateIf(
      merchantId,
      id,
      { enabled: true, failing_since: { $lte: failingSince } },
      { $set: changes },
      events,
    );
    return result !== null;
  }

  async delete(merchantId: string, id: string): Promise<void> {
    await this.tenant.deleteById(merchantId, id);
  }
}
