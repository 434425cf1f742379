/**
 * Claims on a delivery's scheduled slot, so that no two senders (replicas, or a poller and a
 * fresh event) make the same attempt. The claim is a lease written on the delivery itself by one
 * conditional update. A fresh delivery exists only in memory, leased to the fan-out that made
 * it, until its first attempt answers: then one insert stores it with that attempt and its
 * outcome (docs/webhooks.md, Durability). A lease that ran out without the slot moving on
 * belonged to a sender that died: the next claimant takes the slot and logs the lost attempt as
 * interrupted. An outcome applies only while its claim still holds the slot, so an attempt that
 * a redeliver or a takeover overtook only logs.
 */
import { randomUUID } from 'node:crypto';
import type { DeliverySchedule, DeliveryStore, DueDelivery } from './ports';
import {
  NO_LEASE,
  toDue,
  type AttemptResult,
  type DeliveryRecord,
  type Lease,
  type LoggedAttempt,
} from './records';
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
  /** False while the delivery exists only in memory (a fresh one, until its first write). */
  stored: boolean;
}

export class DeliveryClaims {
  constructor(
    private readonly deliveries: DeliveryStore,
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

  /** The claim a fresh delivery was made with. */
  static held(delivery: DeliveryRecord & Lease): Claim {
    return {
      delivery,
      slot: delivery.next_attempt_at!,
      token: delivery.lease_token,
      requestId: delivery.lease_request_id,
      startedAt: delivery.lease_started_at,
      leaseUntil: delivery.lease_until,
      scheduled: false,
      stored: false,
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
      stored: true,
    };
  }

  /**
   * Logs the attempt and stores what comes next, in one write. A fresh delivery is inserted
   * with its attempt and outcome (its first and, when delivered, only write); one already
   * stored is updated only while this claim still holds the slot, else the attempt is only
   * logged. A retry's schedule entry is written after the delivery: a crash in between leaves
   * a fresh one to its event's redelivery (fan-out.ts), a stored one to its old entry, put
   * right by `reconcile`. True when the outcome applied.
   */
  async finish(claim: Claim, result: AttemptResult, outcome: AttemptOutcome): Promise<boolean> {
    const { delivery } = claim;
    const attempt: LoggedAttempt = {
      _id: claim.token,
      request_id: claim.requestId,
      started_at: claim.startedAt,
      lease_until: claim.leaseUntil,
      finished_at: new Date(),
      ...result,
    };
    if (!claim.stored) {
      const inserted = await this.deliveries.insertOnce({
        ...delivery,
        ...outcome,
        ...NO_LEASE,
        attempts: [attempt],
        embedded_log: true,
        updated_at: attempt.finished_at!,
      });
      claim.stored = true;
      if (inserted) {
        if (outcome.next_attempt_at) await this.scheduleNext(delivery, outcome.next_attempt_at);
        return true;
      }
      // Stored meanwhile: by the hand-off's deadline under this very claim (with a schedule
      // entry), or by another sender of the same event. The update below tells which.
      claim.scheduled = true;
    }
    const { _id: id, merchant_id: merchantId } = delivery;
    if (!(await this.deliveries.applyOutcome(id, claim.slot, claim.token, outcome, attempt))) {
      await this.deliveries.logAttempt(merchantId, id, attempt);
      return false;
    }
    if (outcome.next_attempt_at) {
      await this.scheduleNext(delivery, outcome.next_attempt_at);
    } else if (claim.scheduled) {
      await this.schedule.remove(id);
    }
    return true;
  }

  /**
   * Stores a fresh delivery whose first attempt has not answered by the hand-off's deadline, or
   * never started (a full lane, a failed attempt), so its event can be acknowledged: pending at
   * its first slot, with a schedule entry. `leased` keeps the claim of an attempt still running,
   * which then applies its outcome like any holder; otherwise it is due at once. Already stored
   * (its attempt's insert came first): only its schedule is made sure of.
   */
  async park(claim: Claim, leased: boolean): Promise<void> {
    const record = { ...claim.delivery, attempts: [], embedded_log: true };
    if (await this.deliveries.insertOnce(leased ? record : { ...record, ...NO_LEASE })) {
      claim.stored = true;
      claim.scheduled = true;
      await this.schedule.set(toDue(record));
      return;
    }
    const stored = await this.deliveries.findById(record.merchant_id, record._id);
    if (stored?.state === 'pending' && stored.next_attempt_at)
      await this.schedule.set(toDue(stored));
  }

  private scheduleNext(delivery: DeliveryRecord, next: Date): Promise<void> {
    return this.schedule.set(toDue({ ...delivery, next_attempt_at: next }));
  }

  /** The attempt of a holder whose lease ran out: it never recorded an answer. */
  private async logInterrupted(before: DeliveryRecord): Promise<void> {
    await this.deliveries.logAttempt(before.merchant_id, before._id, {
      _id: before.lease_token!,
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
