/**
 * One attempt of one delivery: claim it (so nobody else sends it now), sign and send the
 * request, log the attempt and store what comes next. The same use case serves a fresh event,
 * a poller tick and a redeliver.
 */
import type { TenantRepository } from '@aff/mongo';
import type { DeliveryClaims } from '../data/delivery-claims';
import type { DeliveryRecord } from '../data/delivery.schema';
import type { EndpointRecord } from '../data/endpoint.schema';
import { recordAttempt } from '../outbound/delivery-metrics';
import { buildBody } from './payload';
import { outcomeOf, type AttemptOutcome } from './retry-schedule';
import { webhookHeaders } from './signature';
import type { DueDelivery, SendResult, WebhookSender } from './ports';

export interface AttemptSettings {
  /** Multiplies the retry schedule's waits (tests compress 3 days). */
  timeScale: number;
  /** How long a claim holds; longer than a request may take. */
  leaseMs: number;
}

export class DeliveryAttempts {
  constructor(
    private readonly claims: DeliveryClaims,
    private readonly endpoints: TenantRepository<EndpointRecord>,
    private readonly sender: WebhookSender,
    private readonly settings: AttemptSettings,
  ) {}

  /** Makes one attempt if the delivery is due and free; false when there was nothing to do. */
  async attempt(due: DueDelivery): Promise<boolean> {
    const claim = await this.claims.claim(due, new Date(), this.settings.leaseMs);
    if (!claim) return false;
    const { delivery } = claim;
    const firstAttemptAt = delivery.first_attempt_at ?? claim.startedAt;
    const endpoint = await this.endpoints.findById(delivery.merchant_id, delivery.endpoint_id);

    let result: SendResult;
    let outcome: AttemptOutcome;
    if (!endpoint) {
      // Deleted while this delivery waited (its log is being deleted too): nothing to retry.
      result = refused('Endpoint was deleted');
      outcome = { state: 'failed', next_attempt_at: null, first_attempt_at: firstAttemptAt };
    } else {
      // A disabled endpoint keeps its schedule: re-enabled within the window, it still gets the event.
      result = endpoint.enabled
        ? await this.send(delivery, endpoint, claim.requestId)
        : refused('Endpoint is disabled');
      outcome = outcomeOf(
        result.status,
        firstAttemptAt,
        new Date(),
        this.settings.timeScale,
        result.retryAfterMs,
      );
    }
    await this.claims.finish(
      claim,
      {
        response_status: result.status,
        duration_ms: Math.round(result.durationMs),
        error: result.error,
      },
      outcome,
    );
    recordAttempt(delivery.endpoint_id, outcome.state === 'pending' ? 'retrying' : outcome.state);
    return true;
  }

  private async send(
    delivery: DeliveryRecord,
    endpoint: EndpointRecord,
    requestId: string,
  ): Promise<SendResult> {
    const body = buildBody(delivery, requestId);
    const timestamp = Math.floor(Date.now() / 1000);
    return this.sender.send(
      {
        url: endpoint.url,
        headers: webhookHeaders(endpoint.secret, delivery._id, timestamp, body),
        body,
      },
      delivery.trace ?? {},
    );
  }
}

function refused(error: string): SendResult {
  return { status: null, durationMs: 0, error, retryAfterMs: null };
}
