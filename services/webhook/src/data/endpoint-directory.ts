/**
 * A merchant's enabled endpoints, held briefly in memory: every domain event asks for them, and
 * asking the database each time cost more than the rest of the fan-out. A change made through
 * any replica is announced on a plain NATS subject and drops the merchant's entry everywhere;
 * the short lifetime covers an announcement lost in a reconnect.
 */
import type { NatsConnection, Subscription } from '@aff/messaging';
import type { EndpointLookup, EndpointStore } from '../domain/ports';
import type { EndpointRecord } from '../domain/records';

/** Internal to the webhook service's replicas. */
export const ENDPOINTS_CHANGED_SUBJECT = 'ctl.webhook.endpoints_changed';
const TTL_MS = 5_000;

export class EndpointDirectory implements EndpointLookup {
  private readonly cache = new Map<
    string,
    { at: number; endpoints: Promise<EndpointRecord[]>; found?: EndpointRecord[] }
  >();

  constructor(
    private readonly endpoints: Pick<EndpointStore, 'findEnabled' | 'findById'>,
    private readonly nc?: NatsConnection,
  ) {}

  /** Enabled endpoints of the merchant, newest first. */
  enabledOf(merchantId: string): Promise<EndpointRecord[]> {
    const cached = this.cache.get(merchantId);
    if (cached && Date.now() - cached.at < TTL_MS) return cached.endpoints;
    const endpoints = this.endpoints.findEnabled(merchantId);
    const entry: { at: number; endpoints: Promise<EndpointRecord[]>; found?: EndpointRecord[] } = {
      at: Date.now(),
      endpoints,
    };
    this.cache.set(merchantId, entry);
    endpoints.then(
      (found) => (entry.found = found),
      () => this.cache.delete(merchantId),
    );
    return endpoints;
  }

  /**
   * True only when this replica holds a fresh answer that the merchant has no enabled
   * endpoint: its events can be acked unread (the fan-out would make no delivery of them).
   * Anything else (not asked yet, expired, asking now) is false, and the event is read.
   */
  knownWithout(merchantId: string): boolean {
    const cached = this.cache.get(merchantId);
    return Boolean(cached && Date.now() - cached.at < TTL_MS && cached.found?.length === 0);
  }

  /** One endpoint of the merchant: from the enabled ones in memory, else (disabled, deleted) stored. */
  async find(merchantId: string, endpointId: string): Promise<EndpointRecord | null> {
    const enabled = await this.enabledOf(merchantId);
    return (
      enabled.find((endpoint) => endpoint._id === endpointId) ??
      this.endpoints.findById(merchantId, endpointId)
    );
  }

  /** After a change through this replica: forget here, and tell the others. */
  changed(merchantId: string): void {
    this.cache.delete(merchantId);
    this.nc?.publish(ENDPOINTS_CHANGED_SUBJECT, merchantId);
  }

  follow(nc: NatsConnection): Subscription {
    return nc.subscribe(ENDPOINTS_CHANGED_SUBJECT, {
      callback: (error, msg) => {
        if (!error) this.cache.delete(msg.string());
      },
    });
  }
}
