/**
 * Claims on a delivery's scheduled slot, so that no two senders (replicas, or a poller and a
 * fresh event) make the same attempt. FerretDB applies conditional updates non-atomically, so
 * the claim is a unique insert: the attempt record `<delivery id>:<slot ms>`. A claim whose
 * lease ran out without the schedule moving on belonged to a sender that died; the next id in
 * a fixed chain (`:1`, `:2`, …) takes over, so racing takers still compete for one id.
 */
import { randomUUID } from 'node:crypto';
import type { AttemptOutcome } from '../domain/retry-schedule';
import type { AttemptRepository, AttemptResult } from './attempt.repository';
import type { DeliveryRepository } from './delivery.repository';
import type { DeliveryRecord } from './delivery.schema';

export interface Claim {
  delivery: DeliveryRecord;
  /** The attempt's id. */
  token: string;
  requestId: string;
  startedAt: Date;
}

/** More takeovers of one slot than this means something is badly wrong; leave it to the next poll. */
const MAX_TAKEOVERS = 5;

export class DeliveryClaims {
  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly attempts: AttemptRepository,
  ) {}

  /** The claim on the delivery's current slot, or null when it is not due or someone holds it. */
  async claim(deliveryId: string, now: Date, leaseMs: number): Promise<Claim | null> {
    const delivery = await this.deliveries.findAnyById(deliveryId);
    if (!isDue(delivery, now)) return null;
    const slot = delivery.next_attempt_at.getTime();
    const base = `${delivery._id}:${slot}`;
    for (let n = 0; n <= MAX_TAKEOVERS; n++) {
      const token = n === 0 ? base : `${base}:${n}`;
      const requestId = randomUUID();
      const inserted = await this.attempts.insertOnce({
        _id: token,
        merchant_id: delivery.merchant_id,
        delivery_id: delivery._id,
        endpoint_id: delivery.endpoint_id,
        request_id: requestId,
        started_at: now,
        lease_until: new Date(now.getTime() + leaseMs),
        finished_at: null,
        response_status: null,
        duration_ms: null,
        error: null,
      });
      if (inserted) return this.confirm(delivery, slot, token, requestId, now);
      const holder = await this.attempts.findById(token);
      if (holder && holder.lease_until.getTime() > now.getTime()) return null;
    }
    return null;
  }

  /**
   * Logs the attempt's result, then stores what comes next if this claim still holds the slot
   * (a redeliver or a takeover may have replaced it). In that order, the log never shows a
   * delivery as delivered before its attempt; a crash in between leaves the slot to a takeover
   * once the lease runs out (at least once, as receivers expect: they de-duplicate on webhook-id).
   */
  async finish(claim: Claim, result: AttemptResult, outcome: AttemptOutcome): Promise<boolean> {
    await this.attempts.recordResult(claim.token, result, new Date());
    const current = await this.deliveries.findAnyById(claim.delivery._id);
    const holds = current?.claim_token === claim.token && current.state === 'pending';
    if (holds) await this.deliveries.applyOutcome(claim.delivery._id, outcome);
    return holds;
  }

  /**
   * Reads the delivery again after the insert: a sender that finished this slot before it (while
   * this one read a stale schedule) has moved the slot on, and then this claim is withdrawn.
   */
  private async confirm(
    read: DeliveryRecord,
    slot: number,
    token: string,
    requestId: string,
    startedAt: Date,
  ): Promise<Claim | null> {
    const delivery = await this.deliveries.findAnyById(read._id);
    if (!isDue(delivery, startedAt) || delivery.next_attempt_at.getTime() !== slot) {
      await this.attempts.deleteById(token);
      return null;
    }
    await this.deliveries.setClaimToken(delivery._id, token);
    return { delivery: { ...delivery, claim_token: token }, token, requestId, startedAt };
  }
}

function isDue(
  delivery: DeliveryRecord | null,
  now: Date,
): delivery is DeliveryRecord & { next_attempt_at: Date } {
  return (
    delivery !== null &&
    delivery.state === 'pending' &&
    delivery.next_attempt_at !== null &&
    delivery.next_attempt_at.getTime() <= now.getTime()
  );
}
