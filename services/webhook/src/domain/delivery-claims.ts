/**
 * Claims on a delivery's scheduled slot, so that no two senders (replicas, or a poller and a
 * fresh event) make the same attempt. The claim is a lease written on the delivery itself by one
 * conditional update; a fresh delivery is inserted already leased to the fan-out that made it,
 * so its first attempt costs no claim at all. A lease that ran out without the slot moving on
 * belonged to a sender that died: the next claimant takes the slot and logs the lost attempt as
 * interrupted. An outcome applies only while its claim still holds the slot, so an attempt that
 * a redeliver or a takeover overtook only logs.
 */
import { randomUUID } from 'node:crypto';
import type { AttemptLog, DeliverySchedule, DeliveryStore, DueDelivery } from './ports';
import { toDue, type AttemptResult, type DeliveryRecord, type Lease } from './records';
import type { AttemptOutcome } from './retry-schedule';
import { INTERRUPTED } from './views';

export interface Claim {
  delivery: DeliveryRecord;
  /** The slot claimed: the delivery's `next_attempt_at` when the claim was made. */
  slot: Date;
  /** The attempt's id (and its line in the log). */
  token: string;
  requestId: string;
  startedAt: Date;
  leaseUntil: Date;
  /** False while the delivery has no schedule entry (a fresh one, before its first answer). */
  scheduled: boolean;
}

export class DeliveryClaims {
  constructor(
    private readonly deliveries: DeliveryStore,
    private readonly attempts: AttemptLog,
    private readonly schedule: DeliverySchedule,
  ) {}

  /** A new lease for a slot, to be written with the delivery (fresh) or by `claim`. */
  static lease(now: Date, leaseMs: number): Lease {
    return {
      lease_until: new Date(now.getTime() + leaseMs),
      lease_token: randomUUID(),
      lease_request_id: randomUUID(),
      lease_started_at: now,
    };
  }

  /** The claim a fresh delivery was inserted with. */
  static held(delivery: DeliveryRecord & Lease): Claim {
    return {
      delivery,
      slot: delivery.next_attempt_at!,
      token: delivery.lease_token,
      requestId: delivery.lease_request_id,
      startedAt: delivery.lease_started_at,
      leaseUntil: delivery.lease_until,
      scheduled: false,
    };
  }

  /**
   * The claim on `due`'s slot, or null when that slot is not due, is over, or someone holds it.
   * A fresh delivery whose own claim (`due.held`) grew too old while it waited renews it here.
   */
  async claim(due: DueDelivery, now: Date, leaseMs: number): Promise<Claim | null> {
    if (due.slot > now.getTime()) return null;
    const slot = new Date(due.slot);
    const lease = DeliveryClaims.lease(now, leaseMs);
    const own = due.held?.token;
    const before = await this.deliveries.claimSlot(due.merchant_id, due.id, slot, now, lease, own);
    if (!before) {
      await this.reconcile(due, now);
      return null;
    }
    if (before.lease_token && before.lease_token !== own) await this.logInterrupted(before);
    return {
      delivery: { ...before, ...lease },
      slot,
      token: lease.lease_token,
      requestId: lease.lease_request_id,
      startedAt: now,
      leaseUntil: lease.lease_until,
      scheduled: true,
    };
  }

  /**
   * Logs the attempt's result, then stores what comes next if this claim still holds the slot.
   * In that order, the log never shows a delivery as delivered before its attempt; a crash in
   * between leaves the slot to a takeover once the lease runs out (at least once, as receivers
   * expect: they de-duplicate on webhook-id).
   */
  async finish(claim: Claim, result: AttemptResult, outcome: AttemptOutcome): Promise<boolean> {
    const { delivery } = claim;
    await this.attempts.log({
      _id: claim.token,
      merchant_id: delivery.merchant_id,
      delivery_id: delivery._id,
      endpoint_id: delivery.endpoint_id,
      request_id: claim.requestId,
      started_at: claim.startedAt,
      lease_until: claim.leaseUntil,
      finished_at: new Date(),
      ...result,
    });
    const applied = await this.deliveries.applyOutcome(
      delivery._id,
      claim.slot,
      claim.token,
      outcome,
    );
    if (!applied) return false;
    if (outcome.next_attempt_at) {
      await this.schedule.set(toDue({ ...delivery, next_attempt_at: outcome.next_attempt_at }));
    } else if (claim.scheduled) {
      await this.schedule.remove(delivery._id);
    }
    return true;
  }

  /** The attempt of a holder whose lease ran out: it never recorded an answer. */
  private async logInterrupted(before: DeliveryRecord): Promise<void> {
    await this.attempts.log({
      _id: before.lease_token!,
      merchant_id: before.merchant_id,
      delivery_id: before._id,
      endpoint_id: before.endpoint_id,
      request_id: before.lease_request_id ?? before.lease_token!,
      started_at: before.lease_started_at ?? before.updated_at,
      lease_until: before.lease_until ?? before.updated_at,
      finished_at: before.lease_until ?? before.updated_at,
      response_status: null,
      duration_ms: null,
      error: INTERRUPTED,
    });
  }

  /** A schedule entry that no longer matches its delivery (after a crash) is put right. */
  private async reconcile(due: DueDelivery, now: Date): Promise<void> {
    const delivery = await this.deliveries.findById(due.merchant_id, due.id);
    if (delivery?.state === 'pending' && delivery.next_attempt_at) {
      const held = delivery.lease_until && delivery.lease_until.getTime() > now.getTime();
      if (!held && delivery.next_attempt_at.getTime() !== due.slot)
        await this.schedule.set(toDue(delivery));
    } else {
      await this.schedule.remove(due.id);
    }
  }
}
