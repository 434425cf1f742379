/**
 * Everything reachable without the API secret, tried with what any visitor of a merchant's page
 * has (the public key, an affiliate's token, a referral id) and with wrong ones: no answer, error
 * answers included, carries an affiliate's e-mail, wallet e-mails or last name, a campaign's
 * terms, another tenant's data or a stack trace (DESIGN.md section 3, issue 27).
 */
import { randomUUID } from 'node:crypto';
import { api, basicAuth, gatewayUrl, request } from './support/http';
import { createMerchant, type TestMerchant } from './support/merchant';
import { sendProcessorEvent, sign } from './support/processor';

interface Tenant {
  merchant: TestMerchant;
  affiliate: { id: string; token: string };
  campaignName: string;
  referralId: string;
  private: string[];
}

/** Keys a public JSON answer may have; anything else (email, last_name, wallet_*, terms) fails. */
const PUBLIC_KEYS = new Set([
  'referral',
  'affiliate',
  'id',
  'expires_at',
  'first_name',
  'error',
  'details',
  'received',
]);
const STACK_TRACE = /\n\s+at [^\n]+:\d+:\d+|node_modules|\/dist\//;

let a: Tenant;
let b: Tenant;

async function tenant(label: string): Promise<Tenant> {
  const merchant = await createMerchant({ rateLimit: 1000 });
  const client = api(merchant.api_secret);
  const mark = `${label}${randomUUID().slice(0, 8)}`;
  const campaignName = `Terms ${mark}`;
  const campaign = await client.post('/v1/campaigns', {
    name: campaignName,
    url: 'https://shop.example.com/',
    commission_percent: '37',
  });
  expect(campaign.status).toBe(200);
  const created = await client.post('/v1/affiliates', {
    first_name: `First${label}`,
    last_name: `Last${mark}`,
    email: `account-${mark}@example.com`,
    wallet_a_email: `wallet-a-${mark}@example.com`,
    wallet_b_email: `wallet-b-${mark}@example.com`,
    campaign_id: campaign.body.id,
    token: `tok-${mark}`,
  });
  expect(created.status).toBe(200);
  const visit = await request('POST', '/t/v1/visits', {
    json: { key: merchant.public_key, token: `tok-${mark}` },
  });
  expect(visit.status).toBe(200);
  return {
    merchant,
    affiliate: { id: created.body.id, token: `tok-${mark}` },
    campaignName,
    referralId: visit.body.referral.id,
    private: [
      `Last${mark}`,
      `account-${mark}@example.com`,
      `wallet-a-${mark}@example.com`,
      `wallet-b-${mark}@example.com`,
      campaignName,
      merchant.merchant_id,
      merchant.api_secret,
      merchant.processor_signing_secret,
    ],
  };
}

beforeAll(async () => {
  [a, b] = await Promise.all([tenant('Alpha'), tenant('Bravo')]);
});

/** What must never show, asked with tenant A's public key: A's private fields, all of B. */
const forbidden = () => [
  ...a.private,
  ...b.private,
  `FirstBravo`,
  b.affiliate.id,
  b.referralId,
  b.merchant.public_key,
];

/** `sent`: what the request itself carried, which an error may name back (an unknown id). */
function expectNothingPrivate(what: string, text: string, json?: unknown, sent = ''): void {
  for (const secret of forbidden()) {
    if (sent.includes(secret)) continue;
    if (text.includes(secret)) throw new Error(`${what} reveals ${secret}: ${text.slice(0, 400)}`);
  }
  expect(text).not.toMatch(STACK_TRACE);
  if (json !== undefined) {
    const keys = new Set<string>();
    const walk = (value: unknown) => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === 'object')
        for (const [key, inner] of Object.entries(value)) {
          keys.add(key);
          walk(inner);
        }
    };
    walk(json);
    const extra = [...keys].filter((key) => !PUBLIC_KEYS.has(key));
    if (extra.length)
      throw new Error(`${what} answers private fields ${extra.join(', ')}: ${text}`);
  }
}

/** A JSON route: the shared helper also checks the answer against the OpenAPI document. */
async function json(
  what: string,
  method: string,
  path: string,
  opts: Parameters<typeof request>[2] = {},
) {
  const res = await request(method, path, opts);
  const sent = `${path} ${JSON.stringify(opts.json ?? '')} ${opts.rawBody ?? ''}`;
  expectNothingPrivate(what, JSON.stringify(res.body ?? ''), res.body, sent);
  return res;
}

/** An HTML, script or document route. */
async function text(what: string, path: string, init: RequestInit = {}) {
  const res = await fetch(`${gatewayUrl()}${path}`, { redirect: 'manual', ...init });
  const body = await res.text();
  expectNothingPrivate(what, body);
  return { status: res.status, body };
}

const visit = (body: Record<string, unknown>) =>
  json('visit', 'POST', '/t/v1/visits', { json: { key: a.merchant.public_key, ...body } });
const lead = (body: Record<string, unknown>) =>
  json('lead', 'POST', '/t/v1/leads', { json: { key: a.merchant.public_key, ...body } });

describe('public tracking (/t/v1)', () => {
  it('answers a visit and a lead with the referral and the affiliate id and first name only', async () => {
    const seen = await visit({ token: a.affiliate.token, url: 'https://shop.example.com/' });
    expect(seen.status).toBe(200);
    expect(seen.body.affiliate).toEqual({ id: a.affiliate.id, first_name: 'FirstAlpha' });
    const led = await lead({ referral: seen.body.referral.id, email: 'buyer@example.com' });
    expect(led.status).toBe(200);
    expect(led.body).toEqual({
      referral: { id: seen.body.referral.id, expires_at: seen.body.referral.expires_at },
      affiliate: { id: a.affiliate.id, first_name: 'FirstAlpha' },
    });
    // Again (idempotent), and a lead with the affiliate's own address (a self-referral).
    expect((await lead({ referral: seen.body.referral.id, email: 'x@example.com' })).status).toBe(
      200,
    );
    const own = a.private[1]!;
    const self = await request('POST', '/t/v1/leads', {
      json: { key: a.merchant.public_key, referral: a.referralId, email: own },
    });
    expect(self.status).toBe(200);
    expect(JSON.stringify(self.body)).not.toContain(own);
    expect(Object.keys(self.body).sort()).toEqual(['affiliate', 'referral']);
  });

  it("refuses another tenant's token and referral without saying anything about them", async () => {
    expect((await visit({ token: b.affiliate.token })).status).toBe(404);
    expect((await lead({ referral: b.referralId, email: 'buyer@example.com' })).status).toBe(404);
    // Another tenant's referral id given with a visit: a new referral of this tenant, not B's.
    const mixed = await visit({ token: a.affiliate.token, referral: b.referralId });
    expect(mixed.status).toBe(200);
    expect(mixed.body.referral.id).not.toBe(b.referralId);
  });

  it('keeps error answers to the error and its details', async () => {
    expect((await visit({ token: [a.affiliate.token] })).status).toBe(422);
    expect((await visit({ token: `nope-${randomUUID()}` })).status).toBe(404);
    expect((await lead({ referral: a.referralId, email: 'not-an-email' })).status).toBe(422);
    expect((await lead({ referral: randomUUID(), email: 'b@example.com' })).status).toBe(404);
    const badKey = await json('bad key', 'POST', '/t/v1/visits', {
      json: { key: `pk_${randomUUID()}`, token: b.affiliate.token },
    });
    expect(badKey.status).toBe(401);
    const malformed = await json('malformed', 'POST', '/t/v1/leads', {
      rawBody: '{"key":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    const big = await json('too large', 'POST', '/t/v1/visits', {
      json: { key: a.merchant.public_key, token: 'x'.repeat(1_100_000) },
    });
    expect(big.status).toBe(413);
    expect((await json('unknown', 'GET', '/t/v1/nope')).status).toBe(404);
  });

  it('serves the tracker script and the CORS preflight with nothing of any tenant', async () => {
    expect((await text('tracker', '/t/v1/tracker.js')).status).toBe(200);
    expect((await text('preflight', '/t/v1/visits', { method: 'OPTIONS' })).status).toBe(204);
  });
});

describe('processor hook (/hooks/processor)', () => {
  it('answers unknown keys, bad signatures and bad events without details of the merchant', async () => {
    expect((await json('unknown key', 'POST', `/hooks/processor/pk_${randomUUID()}`)).status).toBe(
      404,
    );
    const body = JSON.stringify({ id: 'evt_1', type: 'customer.created', data: { object: {} } });
    const t = Math.floor(Date.now() / 1000);
    const unsigned = await json(
      'bad signature',
      'POST',
      `/hooks/processor/${a.merchant.public_key}`,
      {
        rawBody: body,
        headers: { 'content-type': 'application/json', 'processor-signature': `t=${t},v1=00` },
      },
    );
    expect(unsigned.status).toBe(400);
    const junk = '{"not":"an event"}';
    const invalid = await json('bad event', 'POST', `/hooks/processor/${a.merchant.public_key}`, {
      rawBody: junk,
      headers: {
        'content-type': 'application/json',
        'processor-signature': `t=${t},v1=${sign(a.merchant.processor_signing_secret, t, junk)}`,
      },
    });
    expect(invalid.status).toBe(400);
    // A signed event naming another tenant's referral: accepted, and answered with nothing more.
    const accepted = await sendProcessorEvent(a.merchant, 'customer.created', {
      id: `cus_${randomUUID()}`,
      email: 'c@example.com',
      name: 'C',
      metadata: { referral: b.referralId },
    });
    expect(accepted.status).toBe(200);
    expectNothingPrivate('accepted event', JSON.stringify(accepted.body), accepted.body);
  });
});

describe('portal before sign-in', () => {
  it.each([
    ['GET', '/portal'],
    ['GET', '/portal/referrals'],
    ['GET', '/portal/payouts'],
    ['GET', '/portal/sso?token=nope'],
    ['GET', '/portal/sso'],
    ['GET', '/portal/confirm-email?token=nope'],
    ['GET', '/portal/signed-out'],
    ['GET', '/portal/nope'],
  ])('%s %s shows nothing of any affiliate', async (method, path) => {
    const res = await text(path, path, { method });
    expect(res.status).toBeLessThan(500);
  });

  it.each([
    ['/portal/settings', { wallet_a_email: 'thief@example.com', _csrf: 'x' }],
    ['/portal/sign-out', { _csrf: 'x' }],
    ['/portal/confirm-email', { token: 'nope' }],
  ])('POST %s without a session changes nothing and shows nothing', async (path, form) => {
    const res = await text(path, path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
    expect(res.status).toBeGreaterThanOrEqual(300);
    expect(res.status).toBeLessThan(500);
    const after = await api(a.merchant.api_secret).get(`/v1/affiliates/${a.affiliate.id}`);
    expect(JSON.stringify(after.body)).not.toContain('thief@example.com');
  });
});

describe('documents and error pages', () => {
  it('serves the API description and its reference page with no tenant data', async () => {
    expect((await text('openapi', '/v1/openapi.json')).status).toBe(200);
    expect((await text('docs', '/docs')).status).toBe(200);
    expect((await text('docs script', '/docs/init.js')).status).toBe(200);
  });

  it('answers unknown routes, missing and wrong secrets with the error only', async () => {
    expect((await json('unknown', 'GET', '/nope')).status).toBe(404);
    expect((await json('metrics', 'GET', '/metrics')).status).toBe(404);
    expect((await json('no secret', 'GET', `/v1/affiliates/${a.affiliate.id}`)).status).toBe(401);
    const wrong = await json('wrong secret', 'GET', `/v1/affiliates/${a.affiliate.id}`, {
      headers: { authorization: basicAuth(`sk_${randomUUID()}`) },
    });
    expect(wrong.status).toBe(401);
    // B's secret asking for A's affiliate: 404, with nothing of A.
    const other = await request('GET', `/v1/affiliates/${a.affiliate.id}`, {
      secret: b.merchant.api_secret,
    });
    expect(other.status).toBe(404);
    expect(JSON.stringify(other.body)).not.toContain(a.private[1]!);
  });
});
