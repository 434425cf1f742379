/**
 * Claims on a delivery's scheduled slot, so that no two senders (replicas, or a poller and a
 * fresh event) make the same attempt. FerretDB applies conditional updates non-atomically, so
 * the claim is a unique insert: the attempt record `<delivery id>:<slot ms>`. A claim whose
 * lease ran out without the schedule moving on belonged to a sender that died; the next id in
 * a fixed chain (`:1`, `:2`, …) takes over, so racing takers still compete for one id. An
 * outcome applies only while the delivery is still at the claimed slot, so an attempt that a
 * redeliver or a takeover overtook only logs.
 */
import { randomUUID } from 'node:crypto';
import type { DueDelivery } from '../domain/ports';
import type { AttemptOutcome } from '../domain/retry-schedule';
import type { AttemptRepository, AttemptResult } from './attempt.repository';
import { toDue, type DeliveryRepository } from './delivery.repository';
import type { DeliveryRecord } from './delivery.schema';
import type { ScheduleRepository } from './schedule.repository';

export interface Claim {
  delivery: DeliveryRecord;
  /** The slot claimed: the delivery's `next_attempt_at` when the claim was made. */
  slot: Date;
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
    private readonly schedule: ScheduleRepository,
  ) {}

  /** The claim on `due`'s slot, or null when that slot is not due, is over, or someone holds it. */
  async claim(due: DueDelivery, now: Date, leaseMs: number): Promise<Claim | null> {
    if (due.slot > now.getTime()) return null;
    const base = `${due.id}:${due.slot}`;
    for (let n = 0; n <= MAX_TAKEOVERS; n++) {
      const token = n === 0 ? base : `${base}:${n}`;
      const requestId = randomUUID();
      const inserted = await this.attempts.insertOnce({
        _id: token,
        merchant_id: due.merchant_id,
        delivery_id: due.id,
        endpoint_id: due.endpoint_id,
        request_id: requestId,
        started_at: now,
        lease_until: new Date(now.getTime() + leaseMs),
        finished_at: null,
        response_status: null,
        duration_ms: null,
        error: null,
      });
      if (inserted) return this.hold(due, token, requestId, now);
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
    const { delivery } = claim;
    if (!(await this.deliveries.applyOutcome(delivery._id, claim.slot, outcome))) return false;
    if (outcome.next_attempt_at) {
      await this.schedule.set(toDue({ ...delivery, next_attempt_at: outcome.next_attempt_at }));
    } else {
      await this.schedule.remove(delivery._id);
    }
    return true;
  }

  /**
   * After the insert, reads the delivery: when its slot has moved on (a sender that read the
   * schedule earlier finished it, or a redeliver replaced it), the claim is withdrawn.
   */
  private async hold(
    due: DueDelivery,
    token: string,
    requestId: string,
    startedAt: Date,
  ): Promise<Claim | null> {
    const slot = new Date(due.slot);
    const delivery = await this.deliveries.findPendingAt(due.merchant_id, due.id, slot);
    if (!delivery) {
      await this.attempts.deleteById(token);
      await this.reconcile(due);
      return null;
    }
    return { delivery, slot, token, requestId, startedAt };
  }

  /** A schedule entry that no longer matches its delivery (after a crash) is put right. */
  private async reconcile(due: DueDelivery): Promise<void> {
    const delivery = await this.deliveries.tenant.findById(due.merchant_id, due.id);
    if (delivery?.state === 'pending' && delivery.next_attempt_at) {
      if (delivery.next_attempt_at.getTime() !== due.slot) await this.schedule.set(toDue(delivery));
    } else {
      await this.schedule.remove(due.id);
    }
  }
}
