/**
 * One attempt of one delivery: claim it (so nobody else sends it now), sign and send the
 * request, log the attempt and store what comes next. The same use case serves a fresh event,
 * a poller tick and a redeliver.
 */
import type { Claim, DeliveryClaims } from './delivery-claims';
import { recordAttempt } from '../outbound/delivery-metrics';
import { buildBody } from './payload';
import { outcomeOf, type AttemptOutcome } from './retry-schedule';
import type { EndpointHealth } from './endpoint-health';
import { signingSecrets } from './secret-rotation';
import { webhookHeaders } from './signature';
import type { DueDelivery, EndpointLookup, SendResult, WebhookSender } from './ports';
import type { DeliveryRecord, EndpointRecord } from './records';

export interface AttemptSettings {
  /** Multiplies the retry schedule's waits (tests compress 3 days). */
  timeScale: number;
  /** How long a claim holds; longer than a request may take. */
  leaseMs: number;
}

export class DeliveryAttempts {
  constructor(
    private readonly claims: DeliveryClaims,
    private readonly endpoints: Pick<EndpointLookup, 'find'>,
    private readonly sender: WebhookSender,
    private readonly settings: AttemptSettings,
    private readonly health?: Pick<EndpointHealth, 'record'>,
  ) {}

  /** Makes one attempt if the delivery is due and free; false when there was nothing to do. */
  async attempt(due: DueDelivery): Promise<boolean> {
    const claim = await this.claimOf(due);
    if (!claim) return false;
    const { delivery } = claim;
    const firstAttemptAt = delivery.first_attempt_at ?? claim.startedAt;
    const endpoint = await this.endpoints.find(delivery.merchant_id, delivery.endpoint_id);

    let result: SendResult;
    let outcome: AttemptOutcome;
    let sent = false;
    if (!endpoint && !claim.stored) {
      // Deleted since the fan-out: its log is gone, nothing to store or send.
      recordAttempt(delivery.endpoint_id, 'failed');
      return true;
    }
    if (!endpoint) {
      // Deleted while this delivery waited (its log is being deleted too): nothing to retry.
      result = refused('Endpoint was deleted');
      outcome = { state: 'failed', next_attempt_at: null, first_attempt_at: firstAttemptAt };
    } else {
      // A disabled endpoint keeps its schedule: re-enabled within the window, it still gets the event.
      sent = endpoint.enabled;
      result = sent
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
    // Only what the endpoint itself answered (or failed to) counts for its health. A health
    // write that fails is made by the endpoint's next attempt; the delivery is already settled.
    if (sent && endpoint && this.health) {
      await this.health
        .record(endpoint, {
          succeeded: result.status === 200,
          startedAt: claim.startedAt,
          finishedAt: new Date(),
        })
        .catch(() => undefined);
    }
    return true;
  }

  /**
   * A fresh delivery comes with the claim it was made with; one that waited in a lane past half
   * its lease claims its slot again like any other. By then the hand-off has stored it (its
   * deadline is shorter); one it could not store is left to its event's redelivery.
   */
  private async claimOf(due: DueDelivery): Promise<Claim | null> {
    const now = new Date();
    const { held } = due;
    if (held && held.leaseUntil.getTime() > now.getTime() + this.settings.leaseMs / 2) return held;
    if (held && !held.stored) return null;
    return this.claims.claim(due, now, this.settings.leaseMs);
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
        headers: webhookHeaders(
          signingSecrets(endpoint, new Date()),
          delivery._id,
          timestamp,
          body,
        ),
        body,
      },
      delivery.trace ?? {},
    );
  }
}

function refused(error: string): SendResult {
  return { status: null, durationMs: 0, error, retryAfterMs: null };
}
