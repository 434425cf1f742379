import { buildBody, toWebhookObject } from '../src/domain/payload';

const link = {
  id: 'l1',
  url: 'https://x/?via=t',
  token: 't',
  visitors: 3,
  leads: 2,
  conversions: 1,
};
const affiliate = { id: 'a1', first_name: 'Jane', visitors: 7, leads: 2, conversions: 1 };

describe('the webhook object', () => {
  it('adds referrals (the visitors count) to an affiliate and each of its links', () => {
    expect(toWebhookObject('affiliate.created', { ...affiliate, links: [link] })).toEqual({
      ...affiliate,
      referrals: 7,
      links: [{ ...link, referrals: 3 }],
    });
  });

  it('adds referrals to a link event and to affiliates and links embedded in other records', () => {
    expect(toWebhookObject('affiliate_link.created', link)).toEqual({ ...link, referrals: 3 });
    const sale = { id: 's1', affiliate, referral: { id: 'r1', link, affiliate } };
    expect(toWebhookObject('sale.created', sale)).toEqual({
      id: 's1',
      affiliate: { ...affiliate, referrals: 7 },
      referral: {
        id: 'r1',
        link: { ...link, referrals: 3 },
        affiliate: { ...affiliate, referrals: 7 },
      },
    });
  });

  it('leaves other records as the REST API shows them', () => {
    const campaign = { id: 'c1', name: 'Default', visitors: 5 };
    expect(toWebhookObject('campaign.created', campaign)).toEqual(campaign);
  });
});

describe('the request body', () => {
  it('is exactly {object, event: {id, type, created_at, api_version}, request: {id}}', () => {
    const body = buildBody(
      {
        object_json: '{"id":"a1"}',
        event_id: 'e1',
        event_type: 'affiliate.created',
        event_created_at: '2025-01-01T00:00:00.000Z',
      },
      'r1',
    );
    expect(body).toBe(
      '{"object":{"id":"a1"},"event":{"id":"e1","type":"affiliate.created","created_at":"2025-01-01T00:00:00.000Z","api_version":"v1"},"request":{"id":"r1"}}',
    );
  });
});
