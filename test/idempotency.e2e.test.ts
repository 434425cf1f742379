/**
 * `Idempotency-Key` through the real gateway: retries replay the first answer, a reused key with
 * other parameters is refused, concurrent requests with one key have one effect, and keys are per
 * merchant. With Redis down the keys live in MongoDB and still hold.
 */
import { randomUUID } from 'node:crypto';
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
