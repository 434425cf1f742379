/**
 * The surface existing clients expect, part 2: `PUT /v1/commissions/:id` (`due_at`, `paid_at`)
 * and `DELETE /v1/commissions/:id`, with the events and `commission_stats` they move.
 */
import { InvalidRequestError, NotFoundError, type OperationInput } from '@aff/client';
import { merchantClient, rejection } from './support/client';
import { api, request } from './support/http';
import { findEvents } from './support/events';
import { createMerchant, type TestMerchant } from './support/merchant';
import { eventually } from './support/processor';
import {
  charge,
  createAffiliate,
  dueCommissionOf,
  generatedPayout,
  referredCustomer,
  waitForCommissions,
} from './support/journey';
import { campaignPayingAtOnce } from './support/portal-journey';

let merchant: TestMerchant;
let payingAtOnce: string;
beforeAll(async () => {
  merchant = await createMerchant({ rateLimit: 100_000 });
  payingAtOnce = await campaignPayingAtOnce(merchant);
});

const UNKNOWN = '99999999-9999-4999-8999-999999999999';

/** A pending commission (default campaign: due in 30 days) of 20 % of `amount`. */
async function pendingCommission(amount = 10_000) {
  const affiliate = await createAffiliate(merchant);
  const { customerId } = await referredCustomer(merchant, affiliate);
  await charge(merchant, customerId, { amount });
  const [commission] = await waitForCommissions(merchant, affiliate.id, (l) => l.length === 1);
  return { affiliate, commission };
}

/** The affiliate's commission_stats in USD once `ready` holds for them. */
function statsOf(affiliate: any, ready: (usd: any) => boolean): Promise<any> {
  return eventually(async () => {
    const res = await merchantClient(merchant.api_secret).affiliates.list({
      email: affiliate.email,
      'expand[]': ['commission_stats'],
    });
    const usd: any = res.data[0]?.commission_stats?.currencies?.USD;
    return usd && ready(usd) ? usd : undefined;
  });
}

const cents = (usd: any) =>
  Object.fromEntries(Object.entries(usd).map(([k, v]) => [k, (v as { cents: number }).cents]));

describe('PUT /v1/commissions/:id with due_at', () => {
  it('reschedules an unpaid commission: in the past it is due at once, in the future pending', async () => {
    const client = merchantClient(merchant.api_secret);
    const { affiliate, commission } = await pendingCommission();
    expect(commission.state).toBe('pending');
    const past = '2026-01-02T03:04:05.000Z';
    const due = await client.commissions.update({ id: commission.id, due_at: new Date(past) });
    expect(due).toMatchObject({
      id: commission.id,
      state: 'due',
      due_at: past,
      paid_at: null,
    });
    expect(due.campaign).toBeDefined();
    expect(due.sale).toBeDefined();
    const updated = await findEvents(
      'EVT_COMMISSION',
      'evt.commission.updated',
      (e) => e.data.id === commission.id && e.data.due_at === past,
    );
    expect(updated).toHaveLength(1);
    await statsOf(affiliate, (usd) => usd.due.cents === 2000 && usd.unpaid.cents === 2000);

    const future = new Date(Date.now() + 10 * 86_400_000).toISOString();
    const later = await client.commissions.update({ id: commission.id, due_at: new Date(future) });
    expect(later).toMatchObject({ state: 'pending', due_at: future });
    expect(await client.commissions.get({ id: commission.id })).toMatchObject({
      state: 'pending',
      due_at: future,
    });
    await statsOf(affiliate, (usd) => usd.due.cents === 0 && usd.unpaid.cents === 2000);
  });

  it('lets the scheduler make it due again when the new time comes (a second time too)', async () => {
    const client = merchantClient(merchant.api_secret);
    const { affiliate, commission } = await pendingCommission();
    for (let round = 0; round < 2; round++) {
      const soon = new Date(Date.now() + 500).toISOString();
      expect(
        (await client.commissions.update({ id: commission.id, due_at: new Date(soon) })).state,
      ).toBe('pending');
      await eventually(async () => {
        const c = await client.commissions.get({ id: commission.id });
        return c.state === 'due' ? c : undefined;
      }, 20_000);
      // The due-ness reached the statistics each time (each move is its own event).
      await statsOf(affiliate, (usd) => usd.due.cents === 2000);
      if (round === 0) {
        await client.commissions.update({
          id: commission.id,
          due_at: new Date(Date.now() + 86_400_000),
        });
        await statsOf(affiliate, (usd) => usd.due.cents === 0);
      }
    }
  });

  it('rejects a timestamp that is not one with 422, and an empty body changes nothing', async () => {
    const client = merchantClient(merchant.api_secret);
    const { commission } = await pendingCommission();
    const path = `/v1/commissions/${commission.id}`;
    for (const [body, detail] of [
      [{ due_at: 'tomorrow' }, 'Due at is not a valid ISO 8601 timestamp'],
      [{ due_at: '2026-02-30' }, 'Due at is not a valid ISO 8601 timestamp'],
      [{ due_at: '' }, "Due at can't be blank"],
      [{ paid_at: 'yesterday' }, 'Paid at is not a valid ISO 8601 timestamp'],
    ] as const) {
      // The client's types take a Date; a merchant's untyped code may send any string.
      const error = await rejection(
        client.commissions.update({
          id: commission.id,
          ...body,
        } as unknown as OperationInput<'updateCommission'>),
      );
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect(error.status).toBe(422);
      expect(error.body).toEqual({ error: 'Could not update commission.', details: [detail] });
      // Raw helper: the same values form-encoded (the client sends JSON) get the same answer.
      const form = await api(merchant.api_secret).put(path, body);
      expect(form.status).toBe(422);
      expect(form.body).toEqual({ error: 'Could not update commission.', details: [detail] });
    }
    const notString = await rejection(
      client.commissions.update({
        id: commission.id,
        due_at: 12,
      } as unknown as OperationInput<'updateCommission'>),
    );
    expect(notString.status).toBe(422);
    // Raw helper: a JSON array as the whole body is a malformed request the client cannot send.
    expect((await request('PUT', path, { secret: merchant.api_secret, json: ['x'] })).status).toBe(
      422,
    );
    const unchanged = await client.commissions.update({ id: commission.id });
    expect(unchanged).toMatchObject({ state: 'pending', due_at: commission.due_at });
  });
});

describe('PUT /v1/commissions/:id with paid_at', () => {
  it('marks it paid outside a payout, emits commission.paid and moves commission_stats as a payout does', async () => {
    const client = merchantClient(merchant.api_secret);
    const { affiliate, commission } = await pendingCommission(15_000);
    await statsOf(affiliate, (usd) => usd.unpaid.cents === 3000);
    const paidAt = '2026-03-04T05:06:07.000Z';
    const paid = await client.commissions.update({ id: commission.id, paid_at: new Date(paidAt) });
    expect(paid).toMatchObject({ id: commission.id, state: 'paid', paid_at: paidAt });
    const [event] = await findEvents(
      'EVT_COMMISSION',
      'evt.commission.paid',
      (e) => e.data.id === commission.id,
    );
    expect(event?.event.data).toMatchObject({ state: 'paid', paid_at: paidAt, amount: 3000 });
    const usd = await statsOf(affiliate, (s) => s.paid.cents === 3000);
    expect(cents(usd)).toMatchObject({ unpaid: 0, due: 0, paid: 3000, total: 3000 });

    // Paid is final: neither rescheduling, paying again nor voiding.
    const again = await rejection(
      client.commissions.update({ id: commission.id, due_at: new Date(paidAt) }),
    );
    expect(again).toBeInstanceOf(InvalidRequestError);
    expect(again.status).toBe(422);
    expect(again.body).toEqual({
      error: 'Could not update commission.',
      details: ['Commission has already been paid'],
    });
    const payAgain = await rejection(
      client.commissions.update({ id: commission.id, paid_at: new Date(paidAt) }),
    );
    expect(payAgain.status).toBe(422);
    const voided = await rejection(client.commissions.delete({ id: commission.id }));
    expect(voided).toBeInstanceOf(InvalidRequestError);
    expect(voided.status).toBe(422);
    expect(voided.body).toEqual({
      error: 'Could not delete commission.',
      details: ['Commission has already been paid'],
    });
    expect((await client.commissions.get({ id: commission.id })).state).toBe('paid');
  });

  it('a commission in an open payout paid directly leaves the payout, which does not pay it again', async () => {
    const client = merchantClient(merchant.api_secret);
    const affiliate = await createAffiliate(merchant, { campaign_id: payingAtOnce });
    const first = await dueCommissionOf(merchant, affiliate, 10_000);
    const second = await referredCustomer(merchant, affiliate);
    await charge(merchant, second.customerId, { amount: 30_000 });
    const both = await waitForCommissions(
      merchant,
      affiliate.id,
      (l) => l.length === 2 && l.every((c) => c.state === 'due'),
    );
    const payout = await eventually(async () => {
      const p = await generatedPayout(merchant, affiliate.id);
      return p?.commissions?.length === 2 ? p : undefined;
    });
    expect(payout.amount).toBe(4000);

    const paidAt = '2026-05-06T07:08:09.000Z';
    const direct = await client.commissions.update({
      id: first.commission.id,
      paid_at: new Date(paidAt),
    });
    expect(direct.state).toBe('paid');
    const shrunk = await eventually(async () => {
      const p = await client.payouts.get({ id: payout.id });
      return p.amount === 3000 ? p : undefined;
    });
    expect(shrunk.commissions!.map((c) => c.id).sort()).toEqual(both.map((c) => c.id).sort());

    const paying = await client.payouts.pay({ id: payout.id });
    expect(paying.amount).toBe(3000);
    const other = both.find((c) => c.id !== first.commission.id)!;
    await eventually(async () => {
      const c = await client.commissions.get({ id: other.id });
      return c.state === 'paid' ? c : undefined;
    });
    // The directly paid one keeps its own payment.
    expect((await client.commissions.get({ id: first.commission.id })).paid_at).toBe(paidAt);
    const usd = await statsOf(affiliate, (s) => s.paid.cents === 4000);
    expect(cents(usd)).toMatchObject({ unpaid: 0, due: 0, paid: 4000, total: 4000 });
  });
});

describe('DELETE /v1/commissions/:id', () => {
  it('voids an unpaid commission, emits commission.voided and moves commission_stats as a refund void does', async () => {
    const client = merchantClient(merchant.api_secret);
    const { affiliate, commission } = await pendingCommission();
    await statsOf(affiliate, (usd) => usd.total.cents === 2000);
    const res = await client.commissions.delete({ id: commission.id });
    expect(res).toEqual({ id: commission.id, deleted: true });
    const voided = await client.commissions.get({ id: commission.id });
    expect(voided).toMatchObject({ state: 'voided', paid_at: null });
    expect(voided.voided_at).toMatch(/^\d{4}-/);
    const events = await findEvents(
      'EVT_COMMISSION',
      'evt.commission.voided',
      (e) => e.data.id === commission.id,
    );
    expect(events).toHaveLength(1);
    const usd = await statsOf(affiliate, (s) => s.total.cents === 0);
    expect(cents(usd)).toMatchObject({ unpaid: 0, due: 0, paid: 0, total: 0 });

    // Again: the same answer, nothing more happens; a voided commission cannot be changed.
    expect(await client.commissions.delete({ id: commission.id })).toEqual({
      id: commission.id,
      deleted: true,
    });
    const change = await rejection(
      client.commissions.update({ id: commission.id, paid_at: new Date('2026-01-01T00:00:00Z') }),
    );
    expect(change.status).toBe(422);
    expect(change.details).toEqual(['Commission has been voided']);
    await new Promise((r) => setTimeout(r, 300));
    expect(
      await findEvents(
        'EVT_COMMISSION',
        'evt.commission.voided',
        (e) => e.data.id === commission.id,
      ),
    ).toHaveLength(1);
  });
});

describe('tenant isolation and unknown ids', () => {
  it("answers 404 for unknown, malformed and another merchant's commissions, and changes nothing", async () => {
    const client = merchantClient(merchant.api_secret);
    const put = await rejection(
      client.commissions.update({ id: UNKNOWN, due_at: new Date('2026-01-01') }),
    );
    expect(put).toBeInstanceOf(NotFoundError);
    expect(put.status).toBe(404);
    expect(put.body).toEqual({ error: `Commission not found: ${UNKNOWN}` });
    const del = await rejection(client.commissions.delete({ id: UNKNOWN }));
    expect(del).toBeInstanceOf(NotFoundError);
    expect(del.status).toBe(404);
    expect(del.body).toEqual({ error: `Commission not found: ${UNKNOWN}` });
    expect((await rejection(client.commissions.delete({ id: 'not-a-uuid' }))).status).toBe(404);

    const { commission } = await pendingCommission();
    const other = merchantClient((await createMerchant({ rateLimit: 100_000 })).api_secret);
    const foreignPut = await rejection(
      other.commissions.update({ id: commission.id, paid_at: new Date('2026-01-01T00:00:00Z') }),
    );
    expect(foreignPut).toBeInstanceOf(NotFoundError);
    expect(foreignPut.status).toBe(404);
    expect(foreignPut.body).toEqual({ error: `Commission not found: ${commission.id}` });
    expect((await rejection(other.commissions.delete({ id: commission.id }))).status).toBe(404);
    const mine = await client.commissions.get({ id: commission.id });
    expect(mine).toMatchObject({ state: 'pending', paid_at: null, voided_at: null });
  });
});
