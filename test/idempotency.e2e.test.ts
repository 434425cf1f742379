/**
 * `Idempotency-Key` through the real gateway: retries replay the first answer, a reused key with
 * other parameters is refused, concurrent requests with one key have one effect, and keys are per
 * merchant. With Redis down the keys live in MongoDB and still hold.
 */
import { createHash, randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { api, request, type ApiResponse } from './support/http';
import { deadRedisUrl, startIsolatedSystem, type IsolatedSystem } from './support/isolated-system';
import { createMerchant, type TestMerchant } from './support/merchant';

function writeWithKey(
  merchant: TestMerchant,
  key: string,
  form: Record<string, string>,
  opts: { method?: string; path?: string; baseUrl?: string } = {},
): Promise<ApiResponse> {
  return request(opts.method ?? 'POST', opts.path ?? '/v1/affiliates', {
    secret: merchant.api_secret,
    form,
    headers: { 'idempotency-key': key },
    baseUrl: opts.baseUrl,
  });
}

function newAffiliate(): Record<string, string> {
  return { first_name: 'Ida', last_name: 'Empotent', email: `ida-${randomUUID()}@example.com` };
}

async function affiliatesWithEmail(merchant: TestMerchant, email: string, baseUrl?: string) {
  const list = await api(merchant.api_secret, baseUrl).get(
    `/v1/affiliates?email=${encodeURIComponent(email)}`,
  );
  expect(list.status).toBe(200);
  return list.body.pagination.total_count as number;
}

describe('Idempotency-Key on REST writes', () => {
  let merchant: TestMerchant;
  beforeAll(async () => {
    merchant = await createMerchant({ rateLimit: 1000 });
  });

  it('replays the first answer to a retry and creates one affiliate', async () => {
    const key = randomUUID();
    const form = newAffiliate();
    const first = await writeWithKey(merchant, key, form);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    const retry = await writeWithKey(merchant, key, form);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('content-type')).toMatch(/^application\/json/);
    expect(retry.headers.get('original-request-id')).toBe(first.headers.get('x-request-id'));
    expect(retry.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    // The replay is a request like any other for the merchant's rate limit.
    expect(retry.headers.get('ratelimit')).toMatch(/^"default";r=\d+;t=\d+$/);
    expect(await affiliatesWithEmail(merchant, form.email!)).toBe(1);
  });

  it('treats the same parameters in another field order or as JSON as the same request', async () => {
    const key = randomUUID();
    const form = newAffiliate();
    const first = await writeWithKey(merchant, key, form);
    const reordered = Object.fromEntries(Object.entries(form).reverse());
    const again = await request('POST', '/v1/affiliates', {
      secret: merchant.api_secret,
      json: reordered,
      headers: { 'idempotency-key': key },
    });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('refuses the key with 422 for other parameters, another path or another method', async () => {
    const key = randomUUID();
    const form = newAffiliate();
    const first = await writeWithKey(merchant, key, form);
    expect(first.status).toBe(200);

    const otherBody = await writeWithKey(merchant, key, { ...form, first_name: 'Other' });
    expect(otherBody.status).toBe(422);
    expect(otherBody.body).toEqual({
      error: 'Idempotency-Key already used for a different request.',
      details: [
        'Idempotency-Key was first used for POST /v1/affiliates with other parameters; use a new key for a new request',
      ],
    });
    const otherPath = await writeWithKey(
      merchant,
      key,
      { name: 'Spring' },
      { path: '/v1/campaigns' },
    );
    expect(otherPath.status).toBe(422);
    const otherMethod = await writeWithKey(merchant, key, form, {
      method: 'PUT',
      path: `/v1/affiliates/${first.body.id}`,
    });
    expect(otherMethod.status).toBe(422);
    expect(await affiliatesWithEmail(merchant, form.email!)).toBe(1);
  });

  it('has one effect for 20 concurrent requests with one key, all answered alike', async () => {
    const key = randomUUID();
    const form = newAffiliate();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => writeWithKey(merchant, key, form)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);
    expect(await affiliatesWithEmail(merchant, form.email!)).toBe(1);
  });

  it('keeps keys per merchant: another merchant with the same key is independent', async () => {
    const other = await createMerchant();
    const key = randomUUID();
    const form = newAffiliate();
    const mine = await writeWithKey(merchant, key, form);
    const theirs = await writeWithKey(other, key, form);
    expect(mine.status).toBe(200);
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(await affiliatesWithEmail(other, form.email!)).toBe(1);
    // A different body under the same key is fine for the other merchant too.
    const second = await writeWithKey(other, randomUUID(), newAffiliate());
    expect(second.status).toBe(200);
  });

  it('stores 4xx answers: a retry of an invalid request gets the same 422, replayed', async () => {
    const key = randomUUID();
    const invalid = { first_name: 'No', email: `no-last-${randomUUID()}@example.com` };
    const first = await writeWithKey(merchant, key, invalid);
    expect(first.status).toBe(422);
    expect(first.body.error).toBe('Could not create affiliate.');
    const retry = await writeWithKey(merchant, key, invalid);
    expect(retry.status).toBe(422);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });

  it('answers 400 for a key longer than 255 characters or empty, and accepts 255', async () => {
    const long = await writeWithKey(merchant, 'k'.repeat(256), newAffiliate());
    expect(long.status).toBe(400);
    expect(long.body).toEqual({ error: 'Idempotency-Key must be 1 to 255 characters long.' });
    const empty = await writeWithKey(merchant, '', newAffiliate());
    expect(empty.status).toBe(400);
    const longest = await writeWithKey(merchant, 'k'.repeat(255), newAffiliate());
    expect(longest.status).toBe(200);
  });

  it('ignores the key on GET', async () => {
    const res = await request('GET', '/v1/affiliates', {
      secret: merchant.api_secret,
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('Idempotency-Key while Redis is down', () => {
  let isolated: IsolatedSystem;
  let merchant: TestMerchant;
  beforeAll(async () => {
    isolated = await startIsolatedSystem({ redisUrl: await deadRedisUrl() });
    merchant = await createMerchant({ rateLimit: 1000 });
  });
  afterAll(async () => {
    await isolated?.stop();
  });

  it('keeps the keys in MongoDB: concurrent retries still create one affiliate', async () => {
    const baseUrl = isolated.system.gatewayUrl;
    const key = randomUUID();
    const form = newAffiliate();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => writeWithKey(merchant, key, form, { baseUrl })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(await affiliatesWithEmail(merchant, form.email!, baseUrl)).toBe(1);
    const other = await writeWithKey(merchant, key, newAffiliate(), { baseUrl });
    expect(other.status).toBe(422);
  });

  it('does not store a 5xx: the retry after the service is back runs again', async () => {
    const baseUrl = isolated.system.gatewayUrl;
    const key = randomUUID();
    const form = newAffiliate();
    await isolated.system.stopProcess('affiliate', 'SIGKILL');
    try {
      const down = await writeWithKey(merchant, key, form, { baseUrl });
      expect(down.status).toBe(503);
    } finally {
      await isolated.system.startProcess('affiliate');
    }
    const retry = await writeWithKey(merchant, key, form, { baseUrl });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await affiliatesWithEmail(merchant, form.email!, baseUrl)).toBe(1);
  });
});

/**
 * The crash the store alone cannot cover: the service made the record, then the gateway died
 * before storing the answer. Its claim expires and the retry runs again; the create's id is
 * derived from the key, so the second run finds the first run's record (docs/idempotency.md).
 */
describe('Idempotency-Key across a gateway killed mid-request', () => {
  // The claim of a dead gateway lasts 4 × the RPC time-out here (8 s), not 60 s.
  const LOCK_MS = 8_000;
  let isolated: IsolatedSystem;
  let merchant: TestMerchant;
  let redis: Redis;
  beforeAll(async () => {
    isolated = await startIsolatedSystem({
      env: { RPC_TIMEOUT_MS: '2000', IDEMPOTENCY_LOCK_MS: String(LOCK_MS) },
    });
    merchant = await createMerchant({ rateLimit: 1000 });
    redis = new Redis(isolated.infra.redisUrl, { lazyConnect: true });
    await redis.connect();
  });
  afterAll(async () => {
    redis?.disconnect();
    await isolated?.stop();
  });

  const pidOf = (name: string) =>
    isolated.system.processes().find((p) => p.name === name && p.label === name)!.pid;
  const claimOf = (key: string) =>
    `idem:${merchant.merchant_id}:${createHash('sha256').update(key).digest('hex')}`;

  async function waitFor<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('re-runs the request after the claim expires and answers the record the first run made', async () => {
    const baseUrl = isolated.system.gatewayUrl;
    const client = api(merchant.api_secret, baseUrl);
    const affiliateForm = newAffiliate();
    const campaignForm = { name: `Crash ${randomUUID()}` };
    const endpointForm = { url: 'https://merchant.example.com/hooks' };
    const writes = [
      { key: randomUUID(), path: '/v1/affiliates', form: affiliateForm },
      { key: randomUUID(), path: '/v1/campaigns', form: campaignForm },
      { key: randomUUID(), path: '/v1/webhook_endpoints', form: endpointForm },
    ];
    const campaignsBefore = (await client.get('/v1/campaigns?limit=100')).body.data.length;
    const endpointsBefore = (await client.get('/v1/webhook_endpoints?limit=100')).body.data.length;

    // Freeze the services, so each request is taken (key claimed, RPC sent) but not answered.
    const frozen = [pidOf('affiliate'), pidOf('webhook')];
    frozen.forEach((pid) => process.kill(pid, 'SIGSTOP'));
    let inFlight: Promise<unknown>[] = [];
    try {
      inFlight = writes.map((w) =>
        writeWithKey(merchant, w.key, w.form, { path: w.path, baseUrl }).catch(() => 'cut off'),
      );
      for (const w of writes) {
        await waitFor(
          async () => ((await redis.exists(claimOf(w.key))) ? true : undefined),
          'claim',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 200)); // the RPCs leave the gateway
      await isolated.system.stopProcess('gateway', 'SIGKILL');
    } finally {
      frozen.forEach((pid) => process.kill(pid, 'SIGCONT'));
    }
    expect(await Promise.all(inFlight)).toEqual(['cut off', 'cut off', 'cut off']);
    // The claims outlive the gateway: nobody stored an answer.
    for (const w of writes)
      expect(JSON.parse((await redis.get(claimOf(w.key)))!).answer).toBeUndefined();
    await isolated.system.startProcess('gateway');

    // The services finished the work the dead gateway asked for.
    const affiliate = await waitFor(async () => {
      const list = await client.get(
        `/v1/affiliates?email=${encodeURIComponent(affiliateForm.email!)}`,
      );
      return list.body.data[0] as { id: string } | undefined;
    }, 'the affiliate');
    const campaign = await waitFor(async () => {
      const list = await client.get('/v1/campaigns?limit=100');
      return (list.body.data as { id: string; name: string }[]).find(
        (c) => c.name === campaignForm.name,
      );
    }, 'the campaign');
    const endpoints = await waitFor(async () => {
      const list = await client.get('/v1/webhook_endpoints?limit=100');
      return list.body.data.length > endpointsBefore
        ? (list.body.data as { id: string }[])
        : undefined;
    }, 'the endpoint');

    // Once the dead gateway's claims expire, the retries run again, and make nothing new.
    await waitFor(
      async () =>
        (await redis.exists(...writes.map((w) => claimOf(w.key)))) === 0 ? true : undefined,
      'the claims to expire',
    );
    const retries = await Promise.all(
      writes.map((w) => writeWithKey(merchant, w.key, w.form, { path: w.path, baseUrl })),
    );
    expect(retries.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(retries.map((r) => r.headers.get('idempotent-replayed'))).toEqual([null, null, null]);
    expect(retries[0]!.body.id).toBe(affiliate.id);
    expect(retries[0]!.body.links).toHaveLength(1);
    expect(retries[1]!.body.id).toBe(campaign.id);
    expect(endpoints.map((e) => e.id)).toContain(retries[2]!.body.id);
    expect(retries[2]!.body.secret).toEqual(expect.any(String));

    expect(await affiliatesWithEmail(merchant, affiliateForm.email!, baseUrl)).toBe(1);
    const campaignsAfter = (await client.get('/v1/campaigns?limit=100')).body.data;
    expect(
      campaignsAfter.filter((c: { name: string }) => c.name === campaignForm.name),
    ).toHaveLength(1);
    expect(campaignsAfter.length).toBe(campaignsBefore + 1);
    expect((await client.get('/v1/webhook_endpoints?limit=100')).body.data.length).toBe(
      endpointsBefore + 1,
    );
    // And from now on the stored answer is replayed.
    const again = await writeWithKey(merchant, writes[1]!.key, campaignForm, {
      path: '/v1/campaigns',
      baseUrl,
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(campaign.id);
  });
});
