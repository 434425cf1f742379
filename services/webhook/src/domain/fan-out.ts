/**
 * One domain event → one delivery per enabled endpoint of its merchant subscribed to its type.
 * A delivery's id (its `webhook-id`) is derived from (event, endpoint), so every sender of one
 * event sends the same id. A new delivery is not written here: it is made in memory, claimed by
 * this process for its first attempt, and stored by that attempt's answer with one write (or
 * by the hand-off's deadline, consumers/deliveries-handoff.ts), before the event is acked. An
 * event seen again finds its stored deliveries and sends none of them again; one it does not
 * find was never answered (a crash) and is sent again, with the same id.
 */
import { deterministicId, type EventEnvelope } from '@aff/contracts';
import { DeliveryClaims } from './delivery-claims';
import { isPublicEventType, subscriptionKeys } from './endpoint-rules';
import { toWebhookObject } from './payload';
import type {
  DeliverySchedule,
  DeliveryStore,
  DueDelivery,
  EndpointLookup,
  TraceCarrier,
} from './ports';
import { toDue, type DeliveryRecord, type EndpointRecord, type Lease } from './records';

/** The delivery id of an event for an endpoint (UUID-shaped, the same on every sender). */
export function deliveryIdOf(eventId: string, endpointId: string): string {
  return deterministicId(`webhook-delivery:${eventId}:${endpointId}`);
}

export class FanOut {
  constructor(
    private readonly endpoints: Pick<EndpointLookup, 'enabledOf'>,
    private readonly deliveries: Pick<DeliveryStore, 'findForEvent'>,
    private readonly schedule: DeliverySchedule,
    private readonly leaseMs: number,
  ) {}

  /** The deliveries this call made, due at once and held by this process. */
  async handle(event: EventEnvelope, trace: TraceCarrier): Promise<DueDelivery[]> {
    if (!isPublicEventType(event.type)) return [];
    const occurredAt = new Date(event.occurred_at);
    // An endpoint hears of events from its creation on, even when the consumer lags or replays.
    const keys = subscriptionKeys(event.type);
    const endpoints = (await this.endpoints.enabledOf(event.merchant_id)).filter(
      (endpoint) =>
        endpoint.events.some((key) => keys.includes(key)) &&
        new Date(endpoint.created_at).getTime() <= occurredAt.getTime(),
    );
    if (endpoints.length === 0) return [];
    const stored = new Map(
      (
        await this.deliveries.findForEvent(
          event.id,
          endpoints.map((e) => e._id),
        )
      ).map((d) => [d.endpoint_id, d]),
    );
    // Seen again after a crash between its write and the event's ack: a pending one may lack
    // its schedule entry (setting it twice is harmless).
    await Promise.all(
      [...stored.values()]
        .filter((d) => d.state === 'pending' && d.next_attempt_at)
        .map((d) => this.schedule.set(toDue(d))),
    );
    const objectJson = JSON.stringify(toWebhookObject(event.type, event.data));
    return endpoints
      .filter((endpoint) => !stored.has(endpoint._id))
      .map((endpoint) => {
        const record = newDelivery(event, endpoint, objectJson, trace, this.leaseMs);
        return { ...toDue(record), held: DeliveryClaims.held(record) };
      });
  }
}

function newDelivery(
  event: EventEnvelope,
  endpoint: EndpointRecord,
  objectJson: string,
  trace: TraceCarrier,
  leaseMs: number,
): DeliveryRecord & Lease {
  const now = new Date();
  return {
    ...DeliveryClaims.lease(now, leaseMs),
    _id: deliveryIdOf(event.id, endpoint._id),
    merchant_id: event.merchant_id,
    endpoint_id: endpoint._id,
    event_id: event.id,
    event_type: event.type,
    event_created_at: event.occurred_at,
    object_json: objectJson,
    trace: { ...trace },
    state: 'pending',
    first_attempt_at: null,
    next_attempt_at: now,
    created_at: now,
    updated_at: now,
  };
}
