/** Gateway concerns through the real gateway: authentication, rate limits, request ids, secrets. */
import { api, request } from './support/http';
import { createMerchant, runOps } from './support/merchant';

describe('authentication', () => {
  it.each([
    ['no credentials', {}],
    [
      'an unknown secret',
      { authorization: `Basic ${Buffer.from('sk_unknown:').toString('base64')}` },
    ],
    ['a bearer token', { authorization: 'Bearer sk_whatever' }],
    ['a malformed basic header', { authorization: 'Basic !!!' }],
    ['an empty username', { authorization: `Basic ${Buffer.from(':pw').toString('base64')}` }],
  ])('answers 401 with the spec body for %s', async (_name, headers) => {
    const res = await request('GET', '/v1/affiliates', { headers });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Invalid API Secret.' });
  });

  it('accepts the secret as username with the password omitted or empty', async () => {
    const merchant = await createMerchant();
    const omitted = await request('GET', '/v1/affiliates', {
      headers: { authorization: `Basic ${Buffer.from(merchant.api_secret).toString('base64')}` },
    });
    expect(omitted.status).toBe(200);
    expect((await api(merchant.api_secret).get('/v1/affiliates')).status).toBe(200);
  });

  it('stops accepting the old secret as soon as it is rotated', async () => {
    const merchant = await createMerchant();
    expect((await api(merchant.api_secret).get('/v1/affiliates')).status).toBe(200);
    const rotated = await runOps([
      'merchant:rotate-secret',
      '--merchant',
      merchant.merchant_id,
      '--json',
    ]);
    expect(rotated.code).toBe(0);
    const { api_secret: newSecret } = JSON.parse(rotated.stdout) as { api_secret: string };
    expect(newSecret).toMatch(/^sk_/);
    expect(newSecret).not.toBe(merchant.api_secret);
    // The CLI tells gateways over NATS; give the message a moment to arrive.
    await new Promise((r) => setTimeout(r, 200));
    expect((await api(merchant.api_secret).get('/v1/affiliates')).status).toBe(401);
    expect((await api(newSecret).get('/v1/affiliates')).status).toBe(200);
  });
});

describe('rate limiting', () => {
  it('sends RateLimit headers on every answer and 429 with Retry-After past the limit', async () => {
    const merchant = await createMerchant({ rateLimit: 3 });
    const client = api(merchant.api_secret);
    for (let i = 1; i <= 3; i++) {
      const res = await client.get('/v1/affiliates');
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-policy')).toBe('"default";q=3;w=30');
      const match = /^"default";r=(\d+);t=(\d+)$/.exec(res.headers.get('ratelimit') ?? '');
      expect(match).not.toBeNull();
      expect(Number(match![1])).toBe(3 - i);
      expect(Number(match![2])).toBeGreaterThan(0);
      expect(Number(match![2])).toBeLessThanOrEqual(30);
    }
    const limited = await client.get('/v1/affiliates');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('ratelimit')).toMatch(/^"default";r=0;t=\d+$/);
    expect(limited.headers.get('ratelimit-policy')).toBe('"default";q=3;w=30');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(typeof limited.body.error).toBe('string');
    // A 422 or 404 still counts and still carries headers; other merchants are unaffected.
    const other = await createMerchant();
    const res = await api(other.api_secret).get(
      '/v1/affiliates/33333333-3333-4333-8333-333333333333',
    );
    expect(res.status).toBe(404);
    expect(res.headers.get('ratelimit-policy')).toBe('"default";q=45;w=30');
    expect(res.headers.get('ratelimit')).toMatch(/^"default";r=44;t=(29|30)$/);
  });
});

describe('request ids and health', () => {
  it('echoes a sane X-Request-Id and makes one up otherwise', async () => {
    const merchant = await createMerchant();
    const mine = await request('GET', '/v1/affiliates', {
      secret: merchant.api_secret,
      headers: { 'x-request-id': 'abc-123' },
    });
    expect(mine.headers.get('x-request-id')).toBe('abc-123');
    const made = await request('GET', '/v1/affiliates', {
      secret: merchant.api_secret,
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reports health and readiness without authentication, and no dependency by name', async () => {
    expect((await request('GET', '/healthz')).body).toEqual({ status: 'ok' });
    const ready = await request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ ready: true });
  });
});

describe('ops CLI', () => {
  it('prints the merchant credentials once as JSON and rejects bad arguments', async () => {
    const ok = await runOps([
      'merchant:create',
      '--name',
      'CLI test',
      '--rate-limit',
      '10',
      '--json',
    ]);
    expect(ok.code).toBe(0);
    const created = JSON.parse(ok.stdout);
    expect(Object.keys(created).sort()).toEqual([
      'api_secret',
      'merchant_id',
      'processor_signing_secret',
      'public_key',
    ]);
    expect(created.api_secret).toMatch(/^sk_/);
    expect(created.public_key).toMatch(/^pk_/);
    expect(created.processor_signing_secret).toMatch(/^whsec_/);
    expect((await runOps(['merchant:create', '--json'])).code).toBe(2);
    expect((await runOps(['merchant:create', '--name', 'X', '--rate-limit', 'lots'])).code).toBe(2);
    expect((await runOps(['merchant:rotate-secret', '--merchant', 'nope'])).code).toBe(1);
  });
});
