/**
 * `referral.flagged` and `referral.reviewed` reach a merchant's webhook endpoint like every
 * other event, in the spec's payload shape with the referral as the REST API shows it; the
 * internal `affiliate.signed_in` can be neither subscribed to nor received.
 */
import { randomUUID } from 'node:crypto';
import { merchantClient } from './support/client';
import { gatewayUrl, request } from './support/http';
import { createMerchant } from './support/merchant';
import { magicLinkPath } from './support/portal';
import { createAffiliate } from './support/journey';
import {
  ofType,
  startReceiver,
  type WebhookReceiver,
} from '../services/webhook/test/support/webhook-receiver';

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.stop();
});

async function subscribed(events?: string[]) {
  const merchant = await createMerchant({ rateLimit: 100_000 });
  const client = merchantClient(merchant.api_secret);
  await client.webhookEndpoints.create({
    url: `${receiver.url}?m=${merchant.merchant_id}`,
    ...(events ? { events } : {}),
  } as never);
  const mine = (r: { path: string }) => r.path.endsWith(`?m=${merchant.merchant_id}`);
  return { merchant, client, mine };
}

it('delivers referral.flagged and referral.reviewed with the referral as the API shows it', async () => {
  const { merchant, client, mine } = await subscribed(['referral.flagged', 'referral.reviewed']);
  const campaign = await client.campaigns.create({
    name: `Hooks ${randomUUID()}`,
    fraud_policy: { disposable_email: 'hold' },
  } as never);
  const affiliate = await createAffiliate(merchant, { campaign_id: campaign.id });
  const visit = await request('POST', '/t/v1/visits', {
    json: { key: merchant.public_key, token: affiliate.links[0].token },
  });
  const id: string = visit.body.referral.id;
  await request('POST', '/t/v1/leads', {
    json: { key: merchant.public_key, referral: id, email: `${randomUUID()}@mailinator.com` },
  });

  const [flagged] = await receiver.waitFor((r) => mine(r) && ofType('referral.flagged')(r));
  const rest = await client.referrals.get({ id });
  expect(Object.keys(flagged!.json)).toEqual(['object', 'event', 'request']);
  expect(flagged!.json.event).toMatchObject({ type: 'referral.flagged', api_version: 'v1' });
  // The link's counts move with later visits of other tests' referrals: compared apart.
  const { affiliate: embedded, ...object } = flagged!.json.object;
  expect({ ...object, link: null }).toEqual({ ...rest, link: null });
  expect(object.link.id).toBe(rest.link!.id);
  expect(object.fraud_signals.map((s: { type: string }) => s.type)).toEqual(['disposable_email']);
  expect(embedded.id).toBe(affiliate.id);

  const reviewed = await request('POST', `/v1/referrals/${id}/review`, {
    secret: merchant.api_secret,
    json: { decision: 'reject', note: 'Fake sign-ups' },
  });
  const [got] = await receiver.waitFor((r) => mine(r) && ofType('referral.reviewed')(r));
  expect(got!.json.object).toMatchObject({
    id,
    review_state: 'rejected',
    review_note: 'Fake sign-ups',
    deactivated_at: reviewed.body.deactivated_at,
  });
});

it('never lets a merchant subscribe to or receive the internal affiliate.signed_in', async () => {
  const { merchant, client, mine } = await subscribed();
  const refused = await request('POST', '/v1/webhook_endpoints', {
    secret: merchant.api_secret,
    json: { url: receiver.url, events: ['affiliate.signed_in'] },
  });
  expect(refused.status).toBe(422);
  expect(refused.body.details).toEqual([
    'Events contains an unknown event type: affiliate.signed_in',
  ]);

  const affiliate = await createAffiliate(merchant);
  const res = await fetch(`${gatewayUrl()}${await magicLinkPath(merchant, affiliate.id)}`, {
    redirect: 'manual',
  });
  expect(res.status).toBe(303);
  // An event published after the sign-in arrives; the sign-in's own never does.
  const campaign = await client.campaigns.create({ name: `After ${randomUUID()}` });
  await receiver.waitFor((r) => mine(r) && r.json.object.id === campaign.id);
  const types = receiver.requests.filter(mine).map((r) => r.json.event.type);
  expect(types).not.toContain('affiliate.signed_in');
  expect(types).toContain('affiliate.created');
});
