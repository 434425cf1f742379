/**
 * Fraud signals through the real gateway: the campaign's policy and its defaults, each e-mail
 * and landing-page signal, what flag, hold and block do to a referral, exempt affiliates, the
 * list's filters, `referral.flagged` and `referral.reviewed`, and the review operation.
 */
import { randomUUID } from 'node:crypto';
import { DEFAULT_FRAUD_POLICY, STREAMS, eventSubject, type ReferralView } from '@aff/contracts';
import { merchantClient } from './support/client';
import { findEvents } from './support/events';
import { request } from './support/http';
import { createMerchant, type TestMerchant } from './support/merchant';
import { eventually } from './support/processor';
import { createAffiliate } from './support/journey';

let merchant: TestMerchant;
const client = () => merchantClient(merchant.api_secret);

beforeAll(async () => {
  merchant = await createMerchant({ rateLimit: 100_000 });
});

async function visit(token: string, url?: string): Promise<string> {
  const res = await request('POST', '/t/v1/visits', {
    json: { key: merchant.public_key, token, ...(url ? { url } : {}) },
  });
  expect(res.status).toBe(200);
  return res.body.referral.id;
}

async function lead(referral: string, email: string): Promise<void> {
  const res = await request('POST', '/t/v1/leads', {
    json: { key: merchant.public_key, referral, email },
  });
  expect(res.status).toBe(200);
}

const referral = (id: string) => client().referrals.get({ id });

/** An affiliate on a fresh campaign with the given policy changes. */
async function affiliateOn(
  policy: Record<string, string> = {},
  fields: Record<string, string> = {},
) {
  const campaign = await client().campaigns.create({
    name: `Fraud ${randomUUID()}`,
    fraud_policy: policy,
  } as never);
  return createAffiliate(merchant, { campaign_id: campaign.id, ...fields });
}

describe('campaign fraud policy', () => {
  it('starts with the design defaults, shown on create and retrieve', async () => {
    const created = await client().campaigns.create({ name: `Defaults ${randomUUID()}` });
    expect(created.fraud_policy).toEqual(DEFAULT_FRAUD_POLICY);
    expect(created.ip_velocity_limit).toBe(3);
    const read = await client().campaigns.get({ id: created.id });
    expect(read.fraud_policy).toEqual(DEFAULT_FRAUD_POLICY);
  });

  it('changes only the signals an update names, and the velocity limit', async () => {
    const created = await client().campaigns.create({ name: `Update ${randomUUID()}` });
    const res = await request('PUT', `/v1/campaigns/${created.id}`, {
      secret: merchant.api_secret,
      form: { 'fraud_policy[paid_ads]': 'hold', ip_velocity_limit: '5' },
    });
    expect(res.status).toBe(200);
    expect(res.body.fraud_policy).toEqual({ ...DEFAULT_FRAUD_POLICY, paid_ads: 'hold' });
    expect(res.body.ip_velocity_limit).toBe(5);
  });

  it('refuses an unknown action or signal type with 422 and changes nothing', async () => {
    const created = await client().campaigns.create({ name: `Bad ${randomUUID()}` });
    const bad = await request('PUT', `/v1/campaigns/${created.id}`, {
      secret: merchant.api_secret,
      json: { fraud_policy: { paid_ads: 'shout' } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.details).toEqual(['Fraud policy paid_ads is not included in the list']);
    const unknown = await request('PUT', `/v1/campaigns/${created.id}`, {
      secret: merchant.api_secret,
      json: { fraud_policy: { coupon_abuse: 'flag' }, ip_velocity_limit: 0 },
    });
    expect(unknown.status).toBe(422);
    expect((await client().campaigns.get({ id: created.id })).fraud_policy).toEqual(
      DEFAULT_FRAUD_POLICY,
    );
  });
});

describe('signals', () => {
  it('paid_ads: a landing url with a click id is flagged, nothing held, and referral.flagged is published', async () => {
    const affiliate = await affiliateOn();
    const id = await visit(affiliate.links[0].token, 'https://shop.example/?via=x&gclid=Cj0abc');
    const view = await eventually(async () => {
      const r = await referral(id);
      return r.fraud_signals?.length ? r : undefined;
    });
    expect(view.fraud_signals).toEqual([
      {
        type: 'paid_ads',
        detected_at: expect.any(String),
        detail: expect.stringContaining('gclid, a paid-ads click id'),
      },
    ]);
    expect(view.review_state).toBeNull();
    expect(view.deactivated_at).toBeNull();
    const flagged = await findEvents(
      STREAMS.tracking.name,
      eventSubject('referral.flagged'),
      (e) => e.merchant_id === merchant.merchant_id && e.data.id === id,
    );
    expect(flagged).toHaveLength(1);
    expect(flagged[0]!.event.data.fraud_signals[0].type).toBe('paid_ads');
  });

  it("self_referral_email: the affiliate's own gmail, disguised, is blocked with a sentence saying why", async () => {
    const affiliate = await affiliateOn({}, { email: `jane.doe.${Date.now()}@gmail.com` });
    const disguised = affiliate.email.replace('@gmail.com', '').replaceAll('.', '');
    const id = await visit(affiliate.links[0].token);
    await lead(id, `${disguised.toUpperCase()}+promo@googlemail.com`);
    const view = await referral(id);
    expect(view.fraud_signals?.map((s) => s.detail)).toEqual([
      "The lead's e-mail is the affiliate's own, written differently.",
    ]);
    expect(view.deactivated_at).toEqual(expect.any(String));
    expect(view.review_state).toBeNull();
  });

  it('disposable_email: a lead from a disposable-mail domain is flagged', async () => {
    const affiliate = await affiliateOn();
    const id = await visit(affiliate.links[0].token);
    await lead(id, 'someone@mailinator.com');
    const view = await referral(id);
    expect(view.fraud_signals?.map((s) => s.type)).toEqual(['disposable_email']);
    expect(view.deactivated_at).toBeNull();
  });
});

describe('actions', () => {
  it('ignore records nothing', async () => {
    const affiliate = await affiliateOn({ disposable_email: 'ignore' });
    const id = await visit(affiliate.links[0].token);
    await lead(id, 'someone@mailinator.com');
    expect((await referral(id)).fraud_signals).toEqual([]);
  });

  it('hold opens a review, and the list filters by review state and flag', async () => {
    const affiliate = await affiliateOn({ disposable_email: 'hold' });
    const held = await visit(affiliate.links[0].token);
    const clean = await visit(affiliate.links[0].token);
    await lead(held, 'someone@mailinator.com');
    await lead(clean, `clean-${randomUUID()}@example.com`);
    expect((await referral(held)).review_state).toBe('open');
    const ids = async (query: Record<string, string>) =>
      (await client().referrals.list({ affiliate_id: affiliate.id, ...query } as never)).data.map(
        (r: ReferralView) => r.id,
      );
    expect(await ids({ review_state: 'open' })).toEqual([held]);
    expect(await ids({ flagged: 'true' })).toEqual([held]);
    expect(await ids({ flagged: 'false' })).toEqual([clean]);
    expect(await ids({ review_state: 'approved' })).toEqual([]);
    const bad = await request('GET', '/v1/referrals?review_state=maybe', {
      secret: merchant.api_secret,
    });
    expect(bad.status).toBe(400);
  });

  it('an exempt affiliate gets signals recorded, but nothing blocked or held', async () => {
    const affiliate = await affiliateOn({ disposable_email: 'hold' });
    const res = await request('PUT', `/v1/affiliates/${affiliate.id}`, {
      secret: merchant.api_secret,
      json: { fraud_exempt: true },
    });
    expect(res.body.fraud_exempt).toBe(true);
    await eventually(async () => {
      // Tracking learns of the exemption from `affiliate.updated`.
      const id = await visit(affiliate.links[0].token);
      await lead(id, affiliate.email);
      const view = await referral(id);
      return view.fraud_signals?.length && !view.deactivated_at ? view : undefined;
    });
    const id = await visit(affiliate.links[0].token);
    await lead(id, 'x@mailinator.com');
    const view = await referral(id);
    expect(view.fraud_signals?.map((s) => s.type)).toEqual(['disposable_email']);
    expect(view.review_state).toBeNull();
  });
});

describe('review', () => {
  async function openReferral(): Promise<string> {
    const affiliate = await affiliateOn({ disposable_email: 'hold' });
    const id = await visit(affiliate.links[0].token);
    await lead(id, `${randomUUID()}@mailinator.com`);
    return id;
  }
  const review = (id: string, body: Record<string, string>, secret = merchant.api_secret) =>
    request('POST', `/v1/referrals/${id}/review`, { secret, json: body });

  it('approve closes the review with its note and publishes referral.reviewed; a second review is 422', async () => {
    const id = await openReferral();
    const res = await review(id, { decision: 'approve', note: 'Known customer' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, review_state: 'approved', review_note: 'Known customer' });
    expect(res.body.deactivated_at).toBeNull();
    const again = await review(id, { decision: 'reject' });
    expect(again.status).toBe(422);
    expect(again.body).toEqual({
      error: 'Could not review referral.',
      details: ['Referral has already been reviewed'],
    });
    const events = await findEvents(
      STREAMS.tracking.name,
      eventSubject('referral.reviewed'),
      (e) => e.merchant_id === merchant.merchant_id && e.data.id === id,
    );
    expect(events.map((e) => e.event.data.review_state)).toEqual(['approved']);
  });

  it('reject deactivates the referral', async () => {
    const id = await openReferral();
    const res = await review(id, { decision: 'reject' });
    expect(res.status).toBe(200);
    expect(res.body.review_state).toBe('rejected');
    expect(res.body.deactivated_at).toEqual(expect.any(String));
  });

  it('two concurrent reviews have one effect', async () => {
    const id = await openReferral();
    const answers = await Promise.all([
      review(id, { decision: 'approve' }),
      review(id, { decision: 'reject' }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 422]);
    const winner = answers.find((a) => a.status === 200)!.body.review_state;
    expect((await referral(id)).review_state).toBe(winner);
    const events = await findEvents(
      STREAMS.tracking.name,
      eventSubject('referral.reviewed'),
      (e) => e.merchant_id === merchant.merchant_id && e.data.id === id,
    );
    expect(events).toHaveLength(1);
  });

  it('refuses a referral that is not held, a bad decision, and another merchant', async () => {
    const affiliate = await affiliateOn();
    const plain = await visit(affiliate.links[0].token);
    expect((await review(plain, { decision: 'approve' })).status).toBe(422);
    const id = await openReferral();
    const bad = await review(id, { decision: 'maybe' });
    expect(bad.status).toBe(422);
    expect(bad.body.details).toEqual(['Decision must be approve or reject']);
    const other = await createMerchant();
    expect((await review(id, { decision: 'approve' }, other.api_secret)).status).toBe(404);
    expect((await referral(id)).review_state).toBe('open');
  });
});
