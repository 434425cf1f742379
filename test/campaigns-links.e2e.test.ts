/** Campaigns and affiliate links through the real gateway, and the events they publish. */
import { api } from './support/http';
import { findEvents } from './support/events';
import { createMerchant, type TestMerchant } from './support/merchant';

let merchant: TestMerchant;
beforeAll(async () => {
  merchant = await createMerchant();
});

describe('/v1/campaigns', () => {
  it('has exactly one default campaign per merchant, created on first need', async () => {
    const list = await api(merchant.api_secret).get('/v1/campaigns');
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({
      name: 'Default campaign',
      default: true,
      reward_type: 'percent',
      commission_percent: 20,
      minimum_payout_cents: 0,
      days_until_commissions_are_due: 30,
      days_before_referrals_expire: 60,
      max_commission_period_months: null,
      max_commissions: null,
    });
  });

  it('creates, retrieves and updates a campaign, validating rules', async () => {
    const client = api(merchant.api_secret);
    const created = await client.post('/v1/campaigns', {
      name: 'Fixed',
      url: 'https://shop.example.com/',
      reward_type: 'amount',
      commission_amount_cents: '1500',
      commission_amount_currency: 'usd',
      minimum_payout_cents: '5000',
      days_until_commissions_are_due: '0',
      max_commissions: '3',
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      name: 'Fixed',
      reward_type: 'amount',
      commission_amount_cents: 1500,
      commission_amount_currency: 'USD',
      minimum_payout_cents: 5000,
      days_until_commissions_are_due: 0,
      max_commissions: 3,
      default: false,
    });
    const got = await client.get(`/v1/campaigns/${created.body.id}`);
    expect(got.body).toEqual(created.body);
    const updated = await client.put(`/v1/campaigns/${created.body.id}`, {
      name: 'Fixed 2',
      max_commissions: '',
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      name: 'Fixed 2',
      max_commissions: null,
      commission_amount_cents: 1500,
    });

    const invalid = await client.post('/v1/campaigns', {
      reward_type: 'amount',
      url: 'ftp://x',
      commission_percent: '150',
    });
    expect(invalid.status).toBe(422);
    expect(invalid.body).toEqual({
      error: 'Could not create campaign.',
      details: [
        "Name can't be blank",
        'Url must be an absolute http(s) URL',
        'Commission percent must be less than or equal to 100',
      ],
    });
    const missingAmount = await client.post('/v1/campaigns', {
      name: 'No amount',
      reward_type: 'amount',
    });
    expect(missingAmount.status).toBe(422);
    expect(missingAmount.body.details).toEqual([
      "Commission amount cents can't be blank",
      "Commission amount currency can't be blank",
    ]);
    const missing = await client.get('/v1/campaigns/44444444-4444-4444-8444-444444444444');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      error: 'Campaign not found: 44444444-4444-4444-8444-444444444444',
    });
  });
});

describe('/v1/affiliate_links', () => {
  it('creates more links, lists by token and affiliate, retrieves one', async () => {
    const client = api(merchant.api_secret);
    const affiliate = (
      await client.post('/v1/affiliates', {
        first_name: 'Link',
        last_name: 'Owner',
        email: `links-${Date.now()}@example.com`,
      })
    ).body;
    const second = await client.post('/v1/affiliate_links', {
      affiliate_id: affiliate.id,
      token: `second-${Date.now()}`,
    });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({
      affiliate_id: affiliate.id,
      visitors: 0,
      leads: 0,
      conversions: 0,
    });
    expect(second.body.url).toBe(`https://example.com/?via=${second.body.token}`);

    const byAffiliate = await client.get(`/v1/affiliate_links?affiliate_id=${affiliate.id}`);
    expect(byAffiliate.body.data.map((l: any) => l.id)).toEqual([
      second.body.id,
      affiliate.links[0].id,
    ]);
    const byToken = await client.get(`/v1/affiliate_links?token=${second.body.token}`);
    expect(byToken.body.data.map((l: any) => l.id)).toEqual([second.body.id]);
    expect((await client.get(`/v1/affiliate_links/${second.body.id}`)).body).toEqual(second.body);

    const dup = await client.post('/v1/affiliate_links', {
      affiliate_id: affiliate.id,
      token: second.body.token,
    });
    expect(dup.status).toBe(422);
    expect(dup.body).toEqual({
      error: 'Could not create affiliate link.',
      details: ['Token has already been taken'],
    });
    const orphan = await client.post('/v1/affiliate_links', {
      affiliate_id: '55555555-5555-4555-8555-555555555555',
    });
    expect(orphan.status).toBe(422);
    expect(orphan.body.details).toEqual(['Affiliate does not exist']);
    const missing = await client.get('/v1/affiliate_links/55555555-5555-4555-8555-555555555555');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      error: 'Affiliate link not found: 55555555-5555-4555-8555-555555555555',
    });
  });
});

describe('domain events', () => {
  it('publishes affiliate.created once, de-duplicated by id, with trace context', async () => {
    const client = api(merchant.api_secret);
    const created = (
      await client.post('/v1/affiliates', {
        first_name: 'Evt',
        last_name: 'One',
        email: `evt-${Date.now()}@example.com`,
      })
    ).body;
    const seen = await findEvents(
      'EVT_AFFILIATE',
      'evt.affiliate.created',
      (e) => e.data?.id === created.id,
    );
    expect(seen).toHaveLength(1);
    const [{ event, msgId, traceparent }] = seen;
    expect(event).toMatchObject({ type: 'affiliate.created', merchant_id: merchant.merchant_id });
    expect(msgId).toBe(event.id);
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    // The event carries the record exactly as the REST API shows it.
    expect(event.data).toEqual(created);
    const linkEvents = await findEvents(
      'EVT_AFFILIATE',
      'evt.affiliate_link.created',
      (e) => e.data?.id === created.links[0].id,
    );
    expect(linkEvents).toHaveLength(1);
  });

  it('publishes campaign.created and campaign.updated', async () => {
    const client = api(merchant.api_secret);
    const campaign = (await client.post('/v1/campaigns', { name: 'Evented' })).body;
    await client.put(`/v1/campaigns/${campaign.id}`, { name: 'Evented 2' });
    const created = await findEvents(
      'EVT_AFFILIATE',
      'evt.campaign.created',
      (e) => e.data?.id === campaign.id,
    );
    expect(created).toHaveLength(1);
    const updated = await findEvents(
      'EVT_AFFILIATE',
      'evt.campaign.updated',
      (e) => e.data?.id === campaign.id,
    );
    expect(updated.map((s) => s.event.data.name)).toEqual(['Evented 2']);
  });
});
