/** Campaigns and affiliate links through the real gateway, and the events they publish. */
import { InvalidRequestError, NotFoundError, type OperationInput } from '@aff/client';
import { merchantClient, rejection } from './support/client';
import { findEvents } from './support/events';
import { createMerchant, type TestMerchant } from './support/merchant';

let merchant: TestMerchant;
beforeAll(async () => {
  merchant = await createMerchant();
});

describe('/v1/campaigns', () => {
  it('has exactly one default campaign per merchant, created on first need', async () => {
    const list = await merchantClient(merchant.api_secret).campaigns.list();
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({
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
    const client = merchantClient(merchant.api_secret);
    const created = await client.campaigns.create({
      name: 'Fixed',
      url: 'https://shop.example.com/',
      reward_type: 'amount',
      commission_amount_cents: 1500,
      commission_amount_currency: 'usd',
      minimum_payout_cents: 5000,
      days_until_commissions_are_due: 0,
      max_commissions: 3,
    });
    expect(created).toMatchObject({
      name: 'Fixed',
      reward_type: 'amount',
      commission_amount_cents: 1500,
      commission_amount_currency: 'USD',
      minimum_payout_cents: 5000,
      days_until_commissions_are_due: 0,
      max_commissions: 3,
      default: false,
    });
    expect(await client.campaigns.get({ id: created.id })).toEqual(created);
    // null clears a limit (a form-encoded client sends a blank value).
    const updated = await client.campaigns.update({
      id: created.id,
      name: 'Fixed 2',
      max_commissions: null,
    });
    expect(updated).toMatchObject({
      name: 'Fixed 2',
      max_commissions: null,
      commission_amount_cents: 1500,
    });

    // Deliberately without the required name.
    const invalid = await rejection(
      client.campaigns.create({
        reward_type: 'amount',
        url: 'ftp://x',
        commission_percent: 150,
      } as OperationInput<'createCampaign'>),
    );
    expect(invalid).toBeInstanceOf(InvalidRequestError);
    expect(invalid.status).toBe(422);
    expect(invalid.body).toEqual({
      error: 'Could not create campaign.',
      details: [
        "Name can't be blank",
        'Url must be an absolute http(s) URL',
        'Commission percent must be less than or equal to 100',
      ],
    });
    const missingAmount = await rejection(
      client.campaigns.create({ name: 'No amount', reward_type: 'amount' }),
    );
    expect(missingAmount.status).toBe(422);
    expect(missingAmount.details).toEqual([
      "Commission amount cents can't be blank",
      "Commission amount currency can't be blank",
    ]);
    const missing = await rejection(
      client.campaigns.get({ id: '44444444-4444-4444-8444-444444444444' }),
    );
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing.body).toEqual({
      error: 'Campaign not found: 44444444-4444-4444-8444-444444444444',
    });
  });
});

describe('/v1/affiliate_links', () => {
  it('creates more links, lists by token and affiliate, retrieves one', async () => {
    const client = merchantClient(merchant.api_secret);
    const affiliate = await client.affiliates.create({
      first_name: 'Link',
      last_name: 'Owner',
      email: `links-${Date.now()}@example.com`,
    });
    const second = await client.links.create({
      affiliate_id: affiliate.id,
      token: `second-${Date.now()}`,
    });
    expect(second).toMatchObject({
      affiliate_id: affiliate.id,
      visitors: 0,
      leads: 0,
      conversions: 0,
    });
    expect(second.url).toBe(`https://example.com/?via=${second.token}`);

    const byAffiliate = await client.links.list({ affiliate_id: affiliate.id });
    expect(byAffiliate.data.map((l) => l.id)).toEqual([second.id, affiliate.links![0]!.id]);
    const byToken = await client.links.list({ token: second.token });
    expect(byToken.data.map((l) => l.id)).toEqual([second.id]);
    expect(await client.links.get({ id: second.id })).toEqual(second);

    const dup = await rejection(
      client.links.create({ affiliate_id: affiliate.id, token: second.token }),
    );
    expect(dup).toBeInstanceOf(InvalidRequestError);
    expect(dup.body).toEqual({
      error: 'Could not create affiliate link.',
      details: ['Token has already been taken'],
    });
    const orphan = await rejection(
      client.links.create({ affiliate_id: '55555555-5555-4555-8555-555555555555' }),
    );
    expect(orphan.status).toBe(422);
    expect(orphan.details).toEqual(['Affiliate does not exist']);
    const missing = await rejection(
      client.links.get({ id: '55555555-5555-4555-8555-555555555555' }),
    );
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing.body).toEqual({
      error: 'Affiliate link not found: 55555555-5555-4555-8555-555555555555',
    });
  });
});

describe('domain events', () => {
  it('publishes affiliate.created once, de-duplicated by id, with trace context', async () => {
    const created = await merchantClient(merchant.api_secret).affiliates.create({
      first_name: 'Evt',
      last_name: 'One',
      email: `evt-${Date.now()}@example.com`,
    });
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
      (e) => e.data?.id === created.links![0]!.id,
    );
    expect(linkEvents).toHaveLength(1);
  });

  it('publishes campaign.created and campaign.updated', async () => {
    const client = merchantClient(merchant.api_secret);
    const campaign = await client.campaigns.create({ name: 'Evented' });
    await client.campaigns.update({ id: campaign.id, name: 'Evented 2' });
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
