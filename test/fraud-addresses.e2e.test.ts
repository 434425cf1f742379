/**
 * The address-based fraud signals through the real gateway, with `X-Forwarded-For` from
 * loopback (a trusted proxy by default) standing for distinct visitors: an affiliate's portal
 * sign-in address seen again on a visit and a lead (`self_referral_ip`), and a burst of leads
 * from one address (`ip_velocity`). No raw address reaches a referral.
 */
import { randomUUID } from 'node:crypto';
import { merchantClient } from './support/client';
import { gatewayUrl, request } from './support/http';
import { createMerchant, type TestMerchant } from './support/merchant';
import { eventually } from './support/processor';
import { magicLinkPath } from './support/portal';
import { createAffiliate } from './support/journey';

let merchant: TestMerchant;
const client = () => merchantClient(merchant.api_secret);

beforeAll(async () => {
  merchant = await createMerchant({ rateLimit: 100_000 });
});

const from = (address: string) => ({ 'x-forwarded-for': address });

async function visit(token: string, address: string): Promise<string> {
  const res = await request('POST', '/t/v1/visits', {
    json: { key: merchant.public_key, token },
    headers: from(address),
  });
  expect(res.status).toBe(200);
  return res.body.referral.id;
}

async function lead(referral: string, address: string): Promise<void> {
  const res = await request('POST', '/t/v1/leads', {
    json: { key: merchant.public_key, referral, email: `${randomUUID()}@example.com` },
    headers: from(address),
  });
  expect(res.status).toBe(200);
}

/** The affiliate follows a magic link from `address`, as their browser behind a proxy would. */
async function portalSignIn(affiliateId: string, address: string): Promise<void> {
  const res = await fetch(`${gatewayUrl()}${await magicLinkPath(merchant, affiliateId)}`, {
    headers: from(address),
    redirect: 'manual',
  });
  expect(res.status).toBe(303);
}

it("self_referral_ip: a visit from the affiliate's portal sign-in address is held, naming the day, never the address", async () => {
  const affiliate = await createAffiliate(merchant);
  await portalSignIn(affiliate.id, '203.0.113.7');
  const today = new Date().toISOString().slice(0, 10);
  // The sign-in reaches tracking as an event: visit until it has arrived.
  const flagged = await eventually(async () => {
    const r = await client().referrals.get({
      id: await visit(affiliate.links[0].token, '203.0.113.7'),
    });
    return r.fraud_signals?.length ? r : undefined;
  });
  expect(flagged.fraud_signals).toEqual([
    {
      type: 'self_referral_ip',
      detected_at: expect.any(String),
      detail: `A visit came from an address the affiliate signed in from on ${today}.`,
    },
  ]);
  expect(flagged.review_state).toBe('open');
  expect(JSON.stringify(flagged)).not.toContain('203.0.113.7');

  const stranger = await visit(affiliate.links[0].token, '198.51.100.20');
  expect((await client().referrals.get({ id: stranger })).fraud_signals).toEqual([]);
  // The stranger's visit, then a lead from the affiliate's own address.
  await lead(stranger, '203.0.113.7');
  const led = await client().referrals.get({ id: stranger });
  expect(led.fraud_signals?.map((s) => s.detail)).toEqual([
    `A lead came from an address the affiliate signed in from on ${today}.`,
  ]);
  expect(led.review_state).toBe('open');
});

it('ip_velocity: the fourth lead of one affiliate from one address within 24 h is flagged and held', async () => {
  const affiliate = await createAffiliate(merchant);
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const id = await visit(affiliate.links[0].token, '192.0.2.44');
    await lead(id, '192.0.2.44');
    ids.push(id);
  }
  const views = await Promise.all(ids.map((id) => client().referrals.get({ id })));
  expect(views.map((v) => v.fraud_signals?.map((s) => s.type))).toEqual([
    [],
    [],
    [],
    ['ip_velocity'],
  ]);
  expect(views[3]!.fraud_signals![0]!.detail).toBe(
    'This lead is number 4 from one address for this affiliate within 24 hours; the campaign allows 3.',
  );
  expect(views.map((v) => v.review_state)).toEqual([null, null, null, 'open']);
  // Another address of the same affiliate has a count of its own.
  const other = await visit(affiliate.links[0].token, '192.0.2.45');
  await lead(other, '192.0.2.45');
  expect((await client().referrals.get({ id: other })).fraud_signals).toEqual([]);
});
