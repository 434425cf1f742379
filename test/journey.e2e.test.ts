/**
 * The whole product in one test, as a merchant integrates it: a visit through an affiliate link,
 * the visitor becomes a lead, the processor reports the customer and a charge, the commission
 * becomes due, a payout bundles it, the merchant pays it, and everything ends paid.
 */
import { merchantClient } from './support/client';
import { request } from './support/http';
import { createMerchant } from './support/merchant';
import { eventually, sendProcessorEvent } from './support/processor';

it('takes a visit all the way to a paid payout', async () => {
  const merchant = await createMerchant({ rateLimit: 5000 });
  const client = merchantClient(merchant.api_secret);
  const campaign = await client.campaigns.create({
    name: 'Journey',
    url: 'https://shop.example.com/',
    commission_percent: 25,
    days_until_commissions_are_due: 0,
    minimum_payout_cents: 1000,
  });
  const affiliate = await client.affiliates.create({
    first_name: 'Jo',
    last_name: 'Urney',
    email: `jo-${Date.now()}@example.com`,
    token: `jo-${Date.now()}`,
    campaign_id: campaign.id,
  });
  expect(affiliate.links![0]!.url).toBe(
    `https://shop.example.com/?via=${affiliate.links![0]!.token}`,
  );

  // 1. Visit (what tracker.js does when the page has ?via=<token>), 2. lead. Public tracking
  // (`/t/v1`, public key) is not part of the merchant client: the raw helper, as a browser sends.
  const visit = await request('POST', '/t/v1/visits', {
    json: {
      key: merchant.public_key,
      token: affiliate.links![0]!.token,
      url: affiliate.links![0]!.url,
    },
  });
  expect(visit.status).toBe(200);
  const referralId = visit.body.referral.id;
  const lead = await request('POST', '/t/v1/leads', {
    form: {
      key: merchant.public_key,
      referral: referralId,
      email: 'buyer@example.com',
      name: 'Buy Er',
    },
  });
  expect(lead.status).toBe(200);
  expect(lead.body.referral.id).toBe(referralId);
  expect((await client.referrals.get({ id: referralId })).conversion_state).toBe('lead');

  // 3. The processor reports the customer (with the referral id the site passed along), 4. a charge.
  const customerId = `cus_journey_${Date.now()}`;
  await sendProcessorEvent(merchant, 'customer.created', {
    id: customerId,
    email: 'buyer@example.com',
    name: 'Buy Er',
    metadata: { referral: referralId },
  });
  await eventually(async () => {
    const r = await client.referrals.get({ id: referralId });
    return r.processor_customer_id === customerId ? true : undefined;
  });
  await sendProcessorEvent(merchant, 'charge.succeeded', {
    id: `ch_journey_${Date.now()}`,
    customer: customerId,
    amount: 8000,
    amount_refunded: 0,
    currency: 'usd',
    tax: 0,
  });

  // 5. The commission exists and is due (days_until_commissions_are_due = 0).
  const commission = await eventually(async () => {
    const res = await client.commissions.list({ affiliate_id: affiliate.id, state: 'due' });
    return res.data[0];
  });
  expect(commission).toMatchObject({ amount: 2000, currency: 'USD', state: 'due' });
  const referral = await client.referrals.get({ id: referralId });
  expect(referral).toMatchObject({
    conversion_state: 'conversion',
    visits: 1,
    customer: { id: customerId },
  });

  // 6. Generate the payout (at the campaign's minimum, so due), 7. pay it.
  const payout = await eventually(async () => {
    const run = await client.payouts.generate({ affiliate_id: affiliate.id });
    return run.data[0];
  });
  expect(payout).toMatchObject({ amount: 2000, currency: 'USD', state: 'due', paid_at: null });
  // Resolving means 200: the client's fetch rejects any status the OpenAPI document does not list.
  const paid = await client.payouts.pay({ id: payout.id });
  expect(paid).toMatchObject({ state: 'processing', paid_by_id: null });
  expect(paid.paid_at).toMatch(/^\d{4}-/);
  expect(paid.commissions![0]).toMatchObject({ id: commission.id, paid_at: paid.paid_at });

  // 8. Everything ends paid.
  const done = await eventually(async () => {
    const res = await client.payouts.get({ id: payout.id });
    return res.state === 'paid' ? res : undefined;
  }, 30_000);
  expect(typeof done.paid_by_id).toBe('string');
  const settled = await eventually(async () => {
    const res = await client.commissions.get({ id: commission.id });
    return res.state === 'paid' ? res : undefined;
  });
  expect(settled.paid_at).toBe(paid.paid_at);
  const stats = await eventually(async () => {
    const res = await client.affiliates.list({
      email: affiliate.email,
      expand: 'commission_stats',
    });
    const usd = res.data[0]!.commission_stats!.currencies.USD;
    return usd?.paid.cents === 2000 ? res.data[0] : undefined;
  });
  expect(stats).toMatchObject({ visitors: 1, leads: 1, conversions: 1 });
}, 120_000);
