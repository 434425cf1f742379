/** Charges of referred customers become sales and commissions, visible through the real gateway. */
import { InvalidRequestError, NotFoundError } from '@aff/client';
import { merchantClient, rejection } from './support/client';
import { createMerchant, type TestMerchant } from './support/merchant';
import { eventually } from './support/processor';
import {
  charge,
  commissionsOf,
  createAffiliate,
  referredCustomer,
  waitForCommissions,
} from './support/journey';

let merchant: TestMerchant;
beforeAll(async () => {
  // Polling for asynchronous results would exceed the default 45 requests per 30 s.
  merchant = await createMerchant({ rateLimit: 100_000 });
});

describe('charge.succeeded of a referred customer', () => {
  it('records the sale, converts the referral and creates a pending commission from the campaign', async () => {
    const affiliate = await createAffiliate(merchant);
    const { referralId, customerId } = await referredCustomer(merchant, affiliate);
    const { chargeId } = await charge(merchant, customerId, { amount: 12_345, tax: 345 });
    const [listed] = await waitForCommissions(merchant, affiliate.id, (l) => l.length === 1);
    expect(listed).toMatchObject({
      amount: 2400,
      currency: 'USD',
      state: 'pending',
      paid_at: null,
      voided_at: null,
    });
    expect(listed).not.toHaveProperty('sale');
    expect(listed).not.toHaveProperty('campaign');
    const days = (new Date(listed.due_at).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);

    const client = merchantClient(merchant.api_secret);
    const retrieved = await client.commissions.get({ id: listed.id });
    expect(retrieved.campaign).toMatchObject({
      id: affiliate.campaign.id,
      commission_percent: 20,
    });
    expect(retrieved.sale).toMatchObject({
      processor_charge_id: chargeId,
      processor_account_id: 'acct_test',
      currency: 'USD',
      charge_amount_cents: 12_345,
      tax_amount_cents: 345,
      refund_amount_cents: 0,
      sale_amount_cents: 12_000,
      referral: { id: referralId, conversion_state: 'conversion' },
      affiliate: { id: affiliate.id, campaign: { id: affiliate.campaign.id } },
    });
    expect(retrieved.sale!.referral!.link).toMatchObject({
      id: affiliate.links[0].id,
      conversions: 1,
    });

    const referral = await client.referrals.get({ id: referralId });
    expect(referral.conversion_state).toBe('conversion');
    expect(referral.became_conversion_at).toMatch(/^\d{4}-/);

    const expanded = await client.commissions.list({
      affiliate_id: affiliate.id,
      'expand[]': ['sale', 'campaign'],
    });
    expect(expanded.data[0]!.sale!.id).toBe(retrieved.sale!.id);
    expect(expanded.data[0]!.campaign!.id).toBe(affiliate.campaign.id);
  });

  it('applies a replayed processor event once', async () => {
    const affiliate = await createAffiliate(merchant);
    const { customerId } = await referredCustomer(merchant, affiliate);
    const first = await charge(merchant, customerId, { amount: 5000 });
    await charge(
      merchant,
      customerId,
      { id: first.chargeId, amount: 5000 },
      { eventId: first.eventId },
    );
    await charge(
      merchant,
      customerId,
      { id: first.chargeId, amount: 5000 },
      { eventId: `${first.eventId}-resent-with-new-id` },
    );
    await waitForCommissions(merchant, affiliate.id, (l) => l.length === 1);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await commissionsOf(merchant, affiliate.id)).toHaveLength(1);
  });

  it('answers 404 with the spec body for a missing commission', async () => {
    const id = '66666666-6666-4666-8666-666666666666';
    const error = await rejection(merchantClient(merchant.api_secret).commissions.get({ id }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.status).toBe(404);
    expect(error.body).toEqual({ error: `Commission not found: ${id}` });
  });

  it('filters by state and state[] and rejects unknown states', async () => {
    const affiliate = await createAffiliate(merchant);
    const { customerId } = await referredCustomer(merchant, affiliate);
    await charge(merchant, customerId, { amount: 1000 });
    await waitForCommissions(merchant, affiliate.id, (l) => l.length === 1);
    expect(await commissionsOf(merchant, affiliate.id, { state: 'pending' })).toHaveLength(1);
    expect(
      await commissionsOf(merchant, affiliate.id, { 'state[]': ['due', 'paid'] }),
    ).toHaveLength(0);
    const bad = await rejection(
      merchantClient(merchant.api_secret).commissions.list({ state: 'lost' }),
    );
    expect(bad).toBeInstanceOf(InvalidRequestError);
    expect(bad.status).toBe(400);
  });
});

describe('campaign rules', () => {
  it('pays a fixed amount, due at once, and stops at max_commissions', async () => {
    const campaign = await merchantClient(merchant.api_secret).campaigns.create({
      name: 'Fixed',
      reward_type: 'amount',
      commission_amount_cents: 700,
      commission_amount_currency: 'eur',
      days_until_commissions_are_due: 0,
      max_commissions: 2,
    });
    const affiliate = await createAffiliate(merchant, { campaign_id: campaign.id });
    const { customerId } = await referredCustomer(merchant, affiliate);
    for (let i = 0; i < 3; i++) await charge(merchant, customerId, { amount: 3000 + i });
    const list = await waitForCommissions(merchant, affiliate.id, (l) => l.length === 2);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await commissionsOf(merchant, affiliate.id)).toHaveLength(2);
    for (const c of list) expect(c).toMatchObject({ amount: 700, currency: 'EUR', state: 'due' });
  });

  it('moves a pending commission to due when due_at passes', async () => {
    const affiliate = await createAffiliate(merchant);
    const { customerId } = await referredCustomer(merchant, affiliate);
    // Charged 30 days ago minus 2 s: due (30 days later) in 2 s.
    const created = Math.floor(Date.now() / 1000) - 30 * 86_400 + 2;
    await charge(merchant, customerId, { amount: 1000, created });
    const [pending] = await waitForCommissions(merchant, affiliate.id, (l) => l.length === 1);
    expect(pending.state).toBe('pending');
    const [due] = await waitForCommissions(merchant, affiliate.id, (l) => l[0]?.state === 'due');
    expect(due.id).toBe(pending.id);
  });
});

describe('refunds', () => {
  it('reduces an unpaid commission in proportion, and voids it on a full refund', async () => {
    const affiliate = await createAffiliate(merchant);
    const { customerId } = await referredCustomer(merchant, affiliate);
    const { chargeId, object } = await charge(merchant, customerId, { amount: 10_000 });
    const [created] = await waitForCommissions(merchant, affiliate.id, (l) => l.length === 1);
    expect(created.amount).toBe(2000);
    await charge(
      merchant,
      customerId,
      { ...object, id: chargeId, amount_refunded: 2500 },
      { type: 'charge.refunded' },
    );
    const [reduced] = await waitForCommissions(
      merchant,
      affiliate.id,
      (l) => l[0]?.amount === 1500,
    );
    expect(reduced.state).toBe('pending');
    const { sale } = await merchantClient(merchant.api_secret).commissions.get({ id: created.id });
    expect(sale).toMatchObject({ refund_amount_cents: 2500, sale_amount_cents: 7500 });
    await charge(
      merchant,
      customerId,
      { ...object, id: chargeId, amount_refunded: 10_000 },
      { type: 'charge.refunded' },
    );
    const [voided] = await waitForCommissions(
      merchant,
      affiliate.id,
      (l) => l[0]?.state === 'voided',
    );
    expect(voided.voided_at).toMatch(/^\d{4}-/);
  });
});

describe('who earns nothing', () => {
  it('ignores customers with no referral, self-referrals and disabled affiliates', async () => {
    const affiliate = await createAffiliate(merchant);
    // A customer nobody referred.
    await charge(merchant, 'cus_nobody', { amount: 9999 });
    // The affiliate refers themself.
    const self = await referredCustomer(merchant, affiliate, affiliate.email);
    const selfReferral = await eventually(async () => {
      const r = await merchantClient(merchant.api_secret).referrals.get({ id: self.referralId });
      return r.deactivated_at ? r : undefined;
    });
    expect(selfReferral.deactivated_at).toMatch(/^\d{4}-/);
    await charge(merchant, self.customerId, { amount: 5000 });
    // A customer referred before the affiliate was disabled.
    const other = await referredCustomer(merchant, affiliate);
    await merchantClient(merchant.api_secret).affiliates.update({
      id: affiliate.id,
      state: 'disabled',
    });
    await new Promise((r) => setTimeout(r, 500));
    await charge(merchant, other.customerId, { amount: 5000 });
    await new Promise((r) => setTimeout(r, 2000));
    expect(await commissionsOf(merchant, affiliate.id)).toEqual([]);
  });
});

describe('tenant isolation', () => {
  it('shows commissions only to their merchant', async () => {
    const affiliate = await createAffiliate(merchant);
    const { customerId } = await referredCustomer(merchant, affiliate);
    await charge(merchant, customerId, { amount: 1000 });
    const [mine] = await waitForCommissions(merchant, affiliate.id, (l) => l.length === 1);
    const other = await createMerchant();
    const theirs = merchantClient(other.api_secret);
    expect(await rejection(theirs.commissions.get({ id: mine.id }))).toBeInstanceOf(NotFoundError);
    expect((await theirs.commissions.list()).data).toEqual([]);
  });
});
