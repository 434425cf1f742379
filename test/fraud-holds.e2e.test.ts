/**
 * Held commissions through the real gateway: a referral the campaign's policy holds earns a
 * commission that stays pending and `held` whatever its date; the due scheduler, payout
 * generation and `paid_at` leave it alone; the review releases it (due at once when its date
 * has passed) or voids it, exactly once.
 */
import { randomUUID } from 'node:crypto';
import { STREAMS, eventSubject, type CommissionView } from '@aff/contracts';
import { merchantClient } from './support/client';
import { findEvents } from './support/events';
import { request } from './support/http';
import { createMerchant, type TestMerchant } from './support/merchant';
import { eventually } from './support/processor';
import { charge, commissionsOf, createAffiliate, referredCustomer } from './support/journey';

let merchant: TestMerchant;
const client = () => merchantClient(merchant.api_secret);

beforeAll(async () => {
  merchant = await createMerchant({ rateLimit: 100_000 });
});

/**
 * An affiliate whose campaign holds disposable e-mails and makes commissions due at once, and
 * a customer of theirs with a disposable address, charged once: its commission.
 */
async function heldCommission(fields: Record<string, string> = {}) {
  const campaign = await client().campaigns.create({
    name: `Holds ${randomUUID()}`,
    days_until_commissions_are_due: 0,
    fraud_policy: { disposable_email: 'hold' },
  } as never);
  const affiliate = await createAffiliate(merchant, { campaign_id: campaign.id, ...fields });
  const customer = await referredCustomer(merchant, affiliate, `${randomUUID()}@mailinator.com`);
  await charge(merchant, customer.customerId, { amount: 10_000 });
  const [commission] = await eventually(async () => {
    const list = await commissionsOf(merchant, affiliate.id);
    return list.length === 1 ? list : undefined;
  });
  return { affiliate, referralId: customer.referralId, commission: commission! };
}

const commission = (id: string) => client().commissions.get({ id });
const review = (id: string, decision: string) =>
  request('POST', `/v1/referrals/${id}/review`, {
    secret: merchant.api_secret,
    json: { decision },
  });

describe('a held commission', () => {
  let held: Awaited<ReturnType<typeof heldCommission>>;
  beforeAll(async () => {
    held = await heldCommission();
  });

  it('is created pending and held, though its campaign makes commissions due at once', () => {
    expect(held.commission).toMatchObject({ state: 'pending', held: true, amount: 2000 });
    expect(new Date(held.commission.due_at).getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('is left alone by the due scheduler (its due_at has passed; the sweep runs every 5 s)', async () => {
    await new Promise((r) => setTimeout(r, 6_000));
    expect(await commission(held.commission.id)).toMatchObject({ state: 'pending', held: true });
  });

  it('is left out of payout generation', async () => {
    const run = await client().payouts.generate({ affiliate_id: held.affiliate.id });
    expect(run.data).toEqual([]);
  });

  it('cannot be marked paid with paid_at (422, nothing changes)', async () => {
    const res = await request('PUT', `/v1/commissions/${held.commission.id}`, {
      secret: merchant.api_secret,
      json: { paid_at: new Date().toISOString(), due_at: '2030-01-01T00:00:00Z' },
    });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual(['Commission is held for a review of its referral']);
    const after = await commission(held.commission.id);
    expect(after).toMatchObject({ state: 'pending', held: true, paid_at: null });
    expect(after.due_at).toBe(held.commission.due_at);
  });

  it('is released by approval, due at once, then paid through a payout, with one release event', async () => {
    expect((await review(held.referralId, 'approve')).status).toBe(200);
    const released = await eventually(async () => {
      const c = await commission(held.commission.id);
      return c.held ? undefined : c;
    });
    expect(released).toMatchObject({ state: 'due', held: false, amount: 2000 });
    const payout = await eventually(async () => {
      const run = await client().payouts.generate({ affiliate_id: held.affiliate.id });
      return run.data[0];
    });
    expect(payout.amount).toBe(2000);
    expect((await review(held.referralId, 'approve')).status).toBe(422);
    const updates = await findEvents(
      STREAMS.commission.name,
      eventSubject('commission.updated'),
      (e) => e.data.id === held.commission.id && e.data.held === false,
    );
    expect(updates).toHaveLength(1);
  });
});

it('rejection voids the held commission and deactivates the referral', async () => {
  const { referralId, commission: c } = await heldCommission();
  const res = await review(referralId, 'reject');
  expect(res.status).toBe(200);
  expect(res.body.deactivated_at).toEqual(expect.any(String));
  const voided = await eventually(async () => {
    const now: CommissionView = await commission(c.id);
    return now.state === 'voided' ? now : undefined;
  });
  expect(voided.voided_at).toEqual(expect.any(String));
  expect(voided.held).toBe(false);
});

it("an exempt affiliate's commission is not held", async () => {
  const campaign = await client().campaigns.create({
    name: `Exempt ${randomUUID()}`,
    days_until_commissions_are_due: 0,
    fraud_policy: { disposable_email: 'hold' },
  } as never);
  const affiliate = await createAffiliate(merchant, { campaign_id: campaign.id });
  await client().affiliates.update({ id: affiliate.id, fraud_exempt: true } as never);
  // Tracking learns of the exemption from `affiliate.updated`: retry with fresh customers.
  const due = await eventually(async () => {
    const customer = await referredCustomer(merchant, affiliate, `${randomUUID()}@mailinator.com`);
    const r = await client().referrals.get({ id: customer.referralId });
    if (r.review_state !== null) return undefined;
    await charge(merchant, customer.customerId, { amount: 5_000 });
    return customer;
  });
  const [c] = await eventually(async () => {
    const list = await commissionsOf(merchant, affiliate.id);
    return list.length === 1 ? list : undefined;
  });
  expect(c).toMatchObject({ state: 'due', held: false });
  expect((await client().referrals.get({ id: due.referralId })).fraud_signals).toHaveLength(1);
});
