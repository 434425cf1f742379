/**
 * A payout from its facts, as plain functions: what it holds, its amount and state, and which
 * events its change calls for. Every process derives the same answer from the same facts, and
 * events get ids derived from what they announce, so a second copy is dropped.
 */
import { createHash } from 'node:crypto';
import type { CommissionState, PayoutState } from '@aff/contracts';
import type { DerivedPayout, PayoutHold } from './records';
import { payoutAmount, stateForAmount } from './payout-rules';

export interface PayoutFacts {
  /** When the (empty) payout was made: its time until it holds a commission. */
  insertedAt: Date;
  /** Claims made for this payout, any epoch. */
  claims: { commission_id: string; created_at: Date }[];
  /** The listed commissions' current figures. */
  commissions: { _id: string; amount: number; state: CommissionState; updated_at: Date }[];
  payment: {
    requested?: { paid_at: Date | null; created_at: Date };
    recorded?: { commission_ids: string[]; amount: number | null };
    completed?: { paid_by_id: string | null; created_at: Date };
  };
  minimumPayoutCents: number;
  /** The export hold (domain/exports); none on a payout no export ever took. */
  hold?: PayoutHold;
}

/** Commissions listed: what the payment recorded, else what was claimed for it. */
export function listedIds(facts: Pick<PayoutFacts, 'claims' | 'payment'>): string[] {
  if (facts.payment.recorded) return facts.payment.recorded.commission_ids;
  return [...new Set(facts.claims.map((c) => c.commission_id))];
}

export function derivePayout(facts: PayoutFacts): DerivedPayout {
  const { requested, recorded, completed } = facts.payment;
  const ids = listedIds(facts);
  const listed = new Set(ids);
  const members = facts.commissions.filter((c) => listed.has(c._id));
  const amount = recorded?.amount ?? payoutAmount(members);
  const hold = facts.hold;
  // An open export holds it: being paid through the export's file, so `processing`.
  const state: PayoutState = completed
    ? 'paid'
    : requested || hold?.export_id
      ? 'processing'
      : stateForAmount(amount, facts.minimumPayoutCents);
  const claimTimes = facts.claims
    .filter((c) => listed.has(c.commission_id))
    .map((c) => c.created_at);
  const createdAt = earliest(claimTimes) ?? new Date(facts.insertedAt);
  // While open, a change of a listed commission (voided, reduced) is a change of the payout.
  const updatedAt = latest([
    createdAt,
    ...claimTimes,
    ...(requested ? [] : members.map((c) => c.updated_at)),
    requested?.paid_at ?? null,
    completed?.created_at ?? null,
    requested ? null : (hold?.export_changed_at ?? null),
  ]);
  const paidAt = requested?.paid_at ? new Date(requested.paid_at) : null;
  const paidById = completed?.paid_by_id ?? null;
  // Taken and released by an export, a payout is due again with a new fingerprint, so its
  // return is announced (events are keyed by fingerprint). Never taken: the old formula.
  const exported = hold && hold.export_count > 0 ? [hold.export_id, hold.export_count] : [];
  const fingerprint = hash([
    ...exported,
    state,
    amount,
    paidAt?.toISOString() ?? null,
    paidById,
    members
      .map((c) => `${c._id}@${new Date(c.updated_at).toISOString()}`)
      .concat(ids.filter((id) => !members.some((m) => m._id === id)))
      .sort(),
  ]);
  return {
    state,
    amount,
    commission_ids: ids,
    commission_count: ids.length,
    fingerprint,
    paid_at: paidAt,
    paid_by_id: paidById,
    created_at: createdAt,
    updated_at: updatedAt,
  };
}

export type PayoutEventType = 'payout.created' | 'payout.updated' | 'payout.due' | 'payout.paid';

export interface PlannedEvent {
  type: PayoutEventType;
  /** With the payout id, the event's identity: the same key is the same event. */
  key: string;
  /** Which view the event carries: the payout now, or as it was once the payment was recorded. */
  view: 'current' | 'processing';
}

type Before = Pick<DerivedPayout, 'commission_count' | 'state' | 'fingerprint'>;

/**
 * `created` when the payout first holds commissions; `updated` when its figures change while
 * open; `due` whenever it becomes due; once paid, `updated` (state `processing`, `paid_at` set:
 * what the commission service acts on) and, when the queued work is done, `paid`.
 */
export function plannedEvents(
  before: Before,
  after: DerivedPayout,
  payment: PayoutFacts['payment'],
): PlannedEvent[] {
  if (after.commission_count === 0) return [];
  if (payment.requested) {
    const events: PlannedEvent[] = [
      { type: 'payout.updated', key: 'processing', view: 'processing' },
    ];
    if (payment.completed) events.push({ type: 'payout.paid', key: 'paid', view: 'current' });
    return events;
  }
  const events: PlannedEvent[] = [];
  if (before.commission_count === 0) {
    events.push({ type: 'payout.created', key: 'created', view: 'current' });
  } else if (before.fingerprint !== after.fingerprint) {
    events.push({ type: 'payout.updated', key: `updated:${after.fingerprint}`, view: 'current' });
  }
  if (after.state === 'due' && before.state !== 'due') {
    events.push({ type: 'payout.due', key: `due:${after.fingerprint}`, view: 'current' });
  }
  return events;
}

function earliest(dates: Date[]): Date | null {
  if (dates.length === 0) return null;
  return new Date(Math.min(...dates.map((d) => new Date(d).getTime())));
}

function latest(dates: (Date | null)[]): Date {
  return new Date(
    Math.max(...dates.filter((d): d is Date => d !== null).map((d) => new Date(d).getTime())),
  );
}

function hash(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
}
