import {
  derivePayout,
  listedIds,
  plannedEvents,
  type PayoutFacts,
} from '../src/domain/payout-derivation';

const t = (minute: number) => new Date(Date.UTC(2024, 0, 1, 0, minute));

const open: PayoutFacts = {
  insertedAt: t(0),
  claims: [
    { commission_id: 'c1', created_at: t(1) },
    { commission_id: 'c2', created_at: t(2) },
  ],
  commissions: [
    { _id: 'c1', amount: 600, state: 'due', updated_at: t(0) },
    { _id: 'c2', amount: 500, state: 'due', updated_at: t(3) },
  ],
  payment: {},
  minimumPayoutCents: 1000,
};

describe('derivePayout', () => {
  it('lists the claimed commissions, sums them and is due at the minimum', () => {
    const payout = derivePayout(open);
    expect(payout).toMatchObject({
      state: 'due',
      amount: 1100,
      commission_ids: ['c1', 'c2'],
      commission_count: 2,
      paid_at: null,
      paid_by_id: null,
      created_at: t(1),
      updated_at: t(3),
    });
  });

  it('stays pending below the minimum, and leaves voided commissions out of the amount', () => {
    const voided = {
      ...open,
      commissions: [open.commissions[0]!, { ...open.commissions[1]!, state: 'voided' as const }],
    };
    expect(derivePayout(voided)).toMatchObject({ state: 'pending', amount: 600 });
  });

  it('is processing once asked to be paid, with what the payment recorded', () => {
    const late = { commission_id: 'c3', created_at: t(9) };
    const payout = derivePayout({
      ...open,
      claims: [...open.claims, late],
      payment: {
        requested: { paid_at: t(5), created_at: t(5) },
        recorded: { commission_ids: ['c1', 'c2'], amount: 1100 },
      },
    });
    // c3 was claimed after the payment recorded its commissions: not part of this payout.
    expect(payout).toMatchObject({
      state: 'processing',
      amount: 1100,
      commission_ids: ['c1', 'c2'],
      paid_at: t(5),
      paid_by_id: null,
      updated_at: t(5),
    });
  });

  it('is paid by whoever asked once the queued work completed', () => {
    const payout = derivePayout({
      ...open,
      payment: {
        requested: { paid_at: t(5), created_at: t(5) },
        recorded: { commission_ids: ['c1', 'c2'], amount: 1100 },
        completed: { paid_by_id: 'key-1', created_at: t(6) },
      },
    });
    expect(payout).toMatchObject({ state: 'paid', paid_by_id: 'key-1', updated_at: t(6) });
  });

  it('gives the same fingerprint for the same facts, another when a commission changes', () => {
    expect(derivePayout(open).fingerprint).toBe(derivePayout({ ...open }).fingerprint);
    const changed = {
      ...open,
      commissions: [open.commissions[0]!, { ...open.commissions[1]!, updated_at: t(4) }],
    };
    expect(derivePayout(changed).fingerprint).not.toBe(derivePayout(open).fingerprint);
  });
});

describe('listedIds', () => {
  it('uses the claims until the payment recorded its commissions', () => {
    expect(listedIds(open)).toEqual(['c1', 'c2']);
    expect(
      listedIds({ ...open, payment: { recorded: { commission_ids: ['c2'], amount: 5 } } }),
    ).toEqual(['c2']);
  });
});

describe('plannedEvents', () => {
  const hidden = { commission_count: 0, state: 'pending' as const, fingerprint: '' };
  const due = derivePayout(open);
  const pending = derivePayout({ ...open, minimumPayoutCents: 5000 });

  it('announces a payout when it first holds commissions, and that it is due', () => {
    expect(plannedEvents(hidden, pending, {}).map((e) => e.type)).toEqual(['payout.created']);
    expect(plannedEvents(hidden, due, {}).map((e) => e.type)).toEqual([
      'payout.created',
      'payout.due',
    ]);
  });

  it('announces changes while open, keyed by what changed, and due when it becomes due', () => {
    const events = plannedEvents(pending, due, {});
    expect(events.map((e) => e.type)).toEqual(['payout.updated', 'payout.due']);
    expect(events[0]!.key).toBe(`updated:${due.fingerprint}`);
    expect(plannedEvents(due, due, {})).toEqual([]);
  });

  it('announces the payment (processing, then paid) under fixed keys, so once', () => {
    const requested = { requested: { paid_at: t(5), created_at: t(5) } };
    expect(plannedEvents(due, due, requested)).toEqual([
      { type: 'payout.updated', key: 'processing', view: 'processing' },
    ]);
    const completed = { ...requested, completed: { paid_by_id: null, created_at: t(6) } };
    expect(plannedEvents(due, due, completed).map((e) => e.key)).toEqual(['processing', 'paid']);
  });

  it('announces nothing for a payout that holds nothing', () => {
    expect(plannedEvents(hidden, derivePayout({ ...open, claims: [] }), {})).toEqual([]);
  });
});

describe('an export hold', () => {
  const held = { export_id: 'e1', export_count: 1, export_changed_at: t(10) };
  const released = { export_id: null, export_count: 1, export_changed_at: t(11) };

  it('makes a due payout processing, and changes nothing for a payout never exported', () => {
    expect(derivePayout({ ...open, hold: held })).toMatchObject({
      state: 'processing',
      updated_at: t(10),
    });
    const never = { export_id: null, export_count: 0, export_changed_at: null };
    expect(derivePayout({ ...open, hold: never })).toEqual(derivePayout(open));
  });

  it('announces the payout due again once its export released it', () => {
    const before = derivePayout(open);
    const whileHeld = derivePayout({ ...open, hold: held });
    const after = derivePayout({ ...open, hold: released });
    expect(after.state).toBe('due');
    // A new fingerprint: the events keyed by it are new, not copies of the first `due`.
    expect(after.fingerprint).not.toBe(before.fingerprint);
    expect(plannedEvents(whileHeld, after, {}).map((e) => e.type)).toEqual([
      'payout.updated',
      'payout.due',
    ]);
  });
});
