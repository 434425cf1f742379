/**
 * One domain event → one delivery per enabled endpoint of its merchant subscribed to its type.
 * The unique (event, endpoint) index makes a redelivered event create nothing twice. A new
 * delivery is inserted already claimed by this process for its first attempt, and without a
 * schedule entry: the consumer hands it to the senders and acknowledges the event only once
 * each attempt has answered or been scheduled (see consumers/deliveries-handoff.ts), so a crash
 * before then redelivers the event, which schedules what it finds unattempted.
 */
import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@aff/contracts';
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

export class FanOut {
  constructor(
    private readonly endpoints: Pick<EndpointLookup, 'enabledOf'>,
    private readonly deliveries: DeliveryStore,
    private readonly schedule: DeliverySchedule,
    private readonly leaseMs: number,
  ) {}

  /** The deliveries this call created, due at once. */
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
    const objectJson = JSON.stringify(toWebhookObject(event.type, event.data));
    const created: DueDelivery[] = [];
    await Promise.all(
      endpoints.map(async (endpoint) => {
        const record = newDelivery(event, endpoint, objectJson, trace, this.leaseMs);
        if (await this.deliveries.insertOnce(record)) {
          created.push({
            ...toDue(record),
            held: DeliveryClaims.held(record),
          });
        } else {
          await this.rescheduleExisting(event.id, endpoint._id);
        }
      }),
    );
    return created;
  }

  /** An event seen again: its delivery exists, but a crash may have cut it off before scheduling. */
  private async rescheduleExisting(eventId: string, endpointId: string): Promise<void> {
    const existing = await this.deliveries.findForEvent(eventId, endpointId);
    if (existing?.state === 'pending' && existing.first_attempt_at === null) {
      await this.schedule.set(toDue(existing));
    }
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
    _id: randomUUID(),
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
