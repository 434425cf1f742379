/** Records to the JSON the REST API returns. Pure functions. */
import type { WebhookAttemptView, WebhookDeliveryView, WebhookEndpointView } from '@aff/contracts';
import type { DeliveryRecord, EndpointRecord, LoggedAttempt } from './records';

const iso = (date: Date | null): string | null => (date ? new Date(date).toISOString() : null);
const isoRequired = (date: Date): string => new Date(date).toISOString();

/** The REST shapes are the contract map's (`@aff/contracts` views-webhook). */
export type EndpointView = WebhookEndpointView;
export type AttemptView = WebhookAttemptView;
export type DeliveryView = WebhookDeliveryView;

export function toEndpointView(record: EndpointRecord, withSecret = false): EndpointView {
  return {
    id: record._id,
    url: record.url,
    events: record.events,
    enabled: record.enabled,
    created_at: isoRequired(record.created_at),
    updated_at: isoRequired(record.updated_at),
    failing_since: iso(record.failing_since ?? null),
    disabled_at: iso(record.disabled_at ?? null),
    disabled_reason: record.disabled_reason ?? null,
    ...(withSecret ? { secret: record.secret } : {}),
  };
}

export const INTERRUPTED = 'Interrupted: the sender stopped before recording an answer';

function toAttemptView(attempt: LoggedAttempt, now: Date): AttemptView {
  const interrupted =
    !attempt.finished_at && new Date(attempt.lease_until).getTime() <= now.getTime();
  return {
    request_id: attempt.request_id,
    attempted_at: isoRequired(attempt.started_at),
    response_status: attempt.response_status,
    duration_ms: attempt.duration_ms,
    error: interrupted ? INTERRUPTED : attempt.error,
  };
}

/** A delivery with its attempts, oldest first. */
export function toDeliveryView(
  record: DeliveryRecord,
  attempts: LoggedAttempt[],
  now: Date = new Date(),
): DeliveryView {
  return {
    id: record._id,
    endpoint_id: record.endpoint_id,
    event_id: record.event_id,
    event_type: record.event_type,
    state: record.state,
    attempts: attempts.map((attempt) => toAttemptView(attempt, now)),
    next_attempt_at: iso(record.next_attempt_at),
    created_at: isoRequired(record.created_at),
    updated_at: isoRequired(record.updated_at),
  };
}
