/**
 * Abuse limits through the real gateway: failed authentication is limited per client IP without
 * slowing merchants whose secrets are good, and the public intake refuses oversized or malformed
 * fields with 4xx. Client IPs are modelled honestly with `X-Forwarded-For`, which only a gateway
 * started with TRUST_PROXY (this test's own system) believes.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { api, basicAuth, request, type ApiResponse } from './support/http';
import { startIsolatedSystem, type IsolatedSystem } from './support/isolated-system';
import { createMerchant, type TestMerchant } from './support/merchant';
import { sendProcessorEvent } from './support/processor';

/** A fresh address per run: counts of earlier runs (shared Redis) cannot leak in. */
const address = (prefix: string) => `${prefix}.${randomInt(1, 255)}.${randomInt(1, 255)}`;

describe('failed authentication per client IP', () => {
  let isolated: IsolatedSystem;
  const from = (ip: string, secret: string | null, path = '/v1/affiliates') =>
    request('GET', path, {
      baseUrl: isolated.system.gatewayUrl,
      headers: {
        'x-forwarded-for': ip,
        ...(secret === null ? {} : { authorization: basicAuth(secret) }),
      },
    });

  beforeAll(async () => {
    isolated = await startIsolatedSystem({
      // A short full reload, for the merchant whose creation message never arrives.
      env: { TRUST_PROXY: 'true', AUTH_DIRECTORY_RELOAD_SECONDS: '2' },
    });
  });
  /** A merchant this system's gateways are told of (the CLI publishes to its NATS). */
  const newMerchant = (opts: { rateLimit?: number } = {}) =>
    createMerchant({ ...opts, natsUrl: isolated.infra.natsUrl });
  const flood = async (ip: string, count: number) => {
    const answers = await Promise.all(
      Array.from({ length: count }, () => from(ip, `sk_${randomUUID()}`)),
    );
    return answers.map((a) => a.status);
  };
  afterAll(async () => {
    await isolated?.stop();
  });

  it('answers a flood of bad secrets with 429 while a good merchant keeps its full rate', async () => {
    const flooder = address('203.0');
    const good = await newMerchant();
    const goodIp = address('198.51');
    // The same secret at the flooded address, verified once before the flood.
    const neighbour = await newMerchant();
    expect((await from(flooder, neighbour.api_secret)).status).toBe(200);
    const idle = await newMerchant();

    const flood: ApiResponse[] = [];
    const goodAnswers: ApiResponse[] = [];
    // 300 bad secrets in waves of 15, one request of the good merchant alongside each wave.
    for (let wave = 0; wave < 20; wave++) {
      const [answers, mine] = await Promise.all([
        Promise.all(Array.from({ length: 15 }, () => from(flooder, `sk_${randomUUID()}`))),
        Promise.all(Array.from({ length: wave < 15 ? 3 : 0 }, () => from(goodIp, good.api_secret))),
      ]);
      flood.push(...answers);
      goodAnswers.push(...mine);
    }

    // The good merchant got all 45 requests of its window, and its own limit after that.
    expect(goodAnswers).toHaveLength(45);
    expect(goodAnswers.map((a) => a.status)).toEqual(Array(45).fill(200));
    const remaining = goodAnswers.map((a) =>
      Number(/r=(\d+)/.exec(a.headers.get('ratelimit')!)![1]),
    );
    expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: 45 }, (_, i) => i));
    const over = await from(goodIp, good.api_secret);
    expect(over.status).toBe(429);
    expect(over.headers.get('ratelimit-policy')).toBe('"default";q=45;w=30');

    // The flooder: 20 failures looked up (a few more may be in flight when the 20th lands),
    // then 429 with the RateLimit fields of the failure policy, without a look-up.
    const unauthorized = flood.filter((a) => a.status === 401);
    const limited = flood.filter((a) => a.status === 429);
    expect(unauthorized.length).toBeGreaterThanOrEqual(20);
    expect(unauthorized.length).toBeLessThan(20 + 15);
    expect(unauthorized.length + limited.length).toBe(300);
    for (const answer of limited) {
      expect(answer.headers.get('ratelimit-policy')).toBe('"auth-failures";q=20;w=60');
      expect(answer.headers.get('ratelimit')).toMatch(/^"auth-failures";r=0;t=\d+$/);
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(answer.body.error).toMatch(
        /^Too many failed authentication attempts\. Retry in \d+ seconds\.$/,
      );
    }
    // The last wave was refused entirely.
    expect(flood.slice(-15).every((a) => a.status === 429)).toBe(true);

    // At the flooded address: no credentials and bad secrets wait for the window; every valid
    // secret is served, one this gateway never saw before included.
    expect((await from(flooder, null)).status).toBe(429);
    expect((await from(flooder, `sk_${randomUUID()}`)).status).toBe(429);
    expect((await from(flooder, idle.api_secret)).status).toBe(200);
    expect((await from(flooder, neighbour.api_secret)).status).toBe(200);
    // Another address without credentials is not affected: a plain 401.
    const stranger = await from(address('192.0'), null);
    expect(stranger.status).toBe(401);
    expect(stranger.body).toEqual({ error: 'Invalid API Secret.' });
    expect(stranger.headers.get('ratelimit')).toBeNull();
  });

  it('serves a valid secret from an address over its failure limit, in the same window', async () => {
    const ip = address('203.113');
    // Never used before: nothing about it is cached, only the directory of secrets knows it.
    const merchant = await newMerchant();
    // Concurrent, so all 30 may pass the check before the first failure is counted.
    expect(await flood(ip, 30)).toEqual(expect.arrayContaining([401]));
    expect((await from(ip, `sk_${randomUUID()}`)).status).toBe(429);
    const good = await from(ip, merchant.api_secret);
    expect(good.status).toBe(200);
    expect(good.headers.get('ratelimit-policy')).toBe('"default";q=45;w=30');
    // Bad secrets from the address are still refused afterwards.
    expect((await from(ip, `sk_${randomUUID()}`)).status).toBe(429);
  });

  it('learns a merchant whose creation message was lost at its next full reload', async () => {
    const ip = address('198.18');
    const unannounced = await createMerchant({ natsUrl: '' });
    await flood(ip, 25);
    // Within AUTH_DIRECTORY_RELOAD_SECONDS (2 s here) the directory has it, flood or not.
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      status = (await from(ip, unannounced.api_secret)).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(200);
  });

  it('counts only failures: good requests from one address never use its failure allowance', async () => {
    const ip = address('100.64');
    const merchant = await newMerchant({ rateLimit: 1000 });
    for (let i = 0; i < 25; i++) expect((await from(ip, merchant.api_secret)).status).toBe(200);
    for (let i = 0; i < 20; i++) expect((await from(ip, `sk_${randomUUID()}`)).status).toBe(401);
    expect((await from(ip, `sk_${randomUUID()}`)).status).toBe(429);
  });
});

describe('public intake fields', () => {
  let merchant: TestMerchant;
  let token: string;
  let referralId: string;
  beforeAll(async () => {
    merchant = await createMerchant({ rateLimit: 1000 });
    token = `abuse-${Date.now()}`;
    const created = await api(merchant.api_secret).post('/v1/affiliates', {
      first_name: 'Ab',
      last_name: 'Use',
      email: `abuse-${randomUUID()}@example.com`,
      token,
    });
    expect(created.status).toBe(200);
    const first = await visit({ token });
    expect(first.status).toBe(200);
    referralId = first.body.referral.id;
  });

  const visit = (body: Record<string, unknown>) =>
    request('POST', '/t/v1/visits', { json: { key: merchant.public_key, ...body } });
  const lead = (body: Record<string, unknown>) =>
    request('POST', '/t/v1/leads', { json: { key: merchant.public_key, ...body } });

  it.each([
    [
      'a token over 64 characters',
      () => ({ token: 't'.repeat(65) }),
      'Token is too long (maximum is 64 characters)',
    ],
    [
      'a url over 2048 characters',
      () => ({ token, url: 'https://e.com/' + 'u'.repeat(2048) }),
      'Url is too long (maximum is 2048 characters)',
    ],
    [
      'a referrer over 2048 characters',
      () => ({ token, referrer: 'r'.repeat(2049) }),
      'Referrer is too long (maximum is 2048 characters)',
    ],
    [
      'a referral id over 64 characters',
      () => ({ token, referral: 'x'.repeat(65) }),
      'Referral is too long (maximum is 64 characters)',
    ],
    ['a token given as a list', () => ({ token: [token, token] }), undefined],
    ['a token given as an object', () => ({ token: { $gt: '' } }), undefined],
  ])('refuses a visit with %s: 422 in the spec format', async (_name, body, message) => {
    const res = await visit(body());
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('Could not record visit.');
    expect(Array.isArray(res.body.details)).toBe(true);
    if (message) expect(res.body.details).toContain(message);
  });

  it.each([
    [
      'an email over 254 characters',
      () => ({ referral: referralId, email: `${'e'.repeat(250)}@example.com` }),
    ],
    ['a malformed email', () => ({ referral: referralId, email: 'not-an-email' })],
    [
      'a referral id over 64 characters',
      () => ({ referral: 'x'.repeat(65), email: 'a@example.com' }),
    ],
    [
      'a name over 255 characters',
      () => ({ referral: referralId, email: 'a@example.com', name: 'n'.repeat(256) }),
    ],
  ])('refuses a lead with %s: 422 in the spec format', async (_name, body) => {
    const res = await lead(body());
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('Could not record lead.');
    expect(res.body.details.length).toBeGreaterThan(0);
  });

  it('answers 413 for a body over 1 MB, 400 for malformed JSON and 401 for an oversized key', async () => {
    const big = await request('POST', '/t/v1/visits', {
      json: { key: merchant.public_key, token, url: 'u'.repeat(1_100_000) },
    });
    expect(big.status).toBe(413);
    expect(big.body).toEqual({ error: 'Request body is too large (limit 1 MB).' });
    const malformed = await request('POST', '/t/v1/leads', {
      rawBody: '{"key":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ error: 'Malformed request body.' });
    const longKey = await visit({ key: 'pk_' + 'k'.repeat(5000), token });
    expect(longKey.status).toBe(401);
    expect(longKey.body).toEqual({ error: 'Invalid public key.' });
  });

  it('refuses processor events with oversized or malformed fields with 400 naming them', async () => {
    const longId = await sendProcessorEvent(
      merchant,
      'customer.created',
      { id: 'cus_ok' },
      {
        id: 'evt_' + 'x'.repeat(300),
      },
    );
    expect(longId.status).toBe(400);
    expect(longId.body.details).toContain('Event id is too long (maximum is 255 characters)');
    const longCustomer = await sendProcessorEvent(merchant, 'customer.created', {
      id: 'cus_' + 'c'.repeat(300),
      email: 'a@example.com',
    });
    expect(longCustomer.status).toBe(400);
    expect(longCustomer.body.details).toContain(
      'Customer id is too long (maximum is 255 characters)',
    );
    const badCharge = await sendProcessorEvent(merchant, 'charge.succeeded', {
      id: 'ch_1',
      amount: 'lots',
      currency: 'usd',
    });
    expect(badCharge.status).toBe(400);
    expect(badCharge.body.error).toBe('Invalid event: expected {id, type, data: {object}}.');
    // Types tracking does not read are still accepted as they are.
    const other = await sendProcessorEvent(merchant, 'invoice.paid', { anything: 'x'.repeat(10) });
    expect(other.status).toBe(200);
  });
});
