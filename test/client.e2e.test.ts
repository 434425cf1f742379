/**
 * The typed client (`@aff/client`) against the real gateway: its page iterator walks a list of
 * several pages, and the API's error answers arrive as the typed exceptions with the spec's
 * error bodies. Every answer also passes the OpenAPI conformance check (./support/client).
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ApiConnectionError,
  AuthenticationError,
  createClient,
  InvalidRequestError,
  NotFoundError,
  RateLimitError,
  type OperationOutput,
} from '@aff/client';
import { conformingFetch, merchantClient, rejection } from './support/client';
import { gatewayUrl } from './support/http';
import { createMerchant, type TestMerchant } from './support/merchant';

type Affiliate = OperationOutput<'createAffiliate'>;

let merchant: TestMerchant;
beforeAll(async () => {
  merchant = await createMerchant();
});

describe('listAll', () => {
  const created: Affiliate[] = [];
  beforeAll(async () => {
    const client = merchantClient(merchant.api_secret);
    for (let i = 0; i < 5; i++) {
      created.push(
        await client.affiliates.create({
          first_name: `Page${i}`,
          last_name: 'Walker',
          email: `walker${i}-${merchant.merchant_id}@example.com`,
        }),
      );
    }
  });

  it('yields every affiliate across pages of two, newest first, one request per page', async () => {
    const client = merchantClient(merchant.api_secret);
    const ids: string[] = [];
    for await (const affiliate of client.affiliates.listAll({ limit: 2 })) ids.push(affiliate.id);
    expect(ids).toEqual([...created].reverse().map((a) => a.id));

    const pages = [];
    for await (const page of client.pages('listAffiliates', { limit: 2 })) {
      pages.push(page.pagination);
    }
    expect(pages.map((p) => [p.current_page, p.next_page, p.count])).toEqual([
      [1, 2, 2],
      [2, 3, 2],
      [3, null, 1],
    ]);
    expect(pages.every((p) => p.total_count === 5 && p.total_pages === 3)).toBe(true);
  });

  it('keeps the filters on every page and starts at the page asked for', async () => {
    const client = merchantClient(merchant.api_secret);
    const campaign = await client.campaigns.create({ name: 'Iterated' });
    for (const a of created.slice(0, 3)) {
      await client.affiliates.update({ id: a.id, campaign_id: campaign.id });
    }
    const ids: string[] = [];
    for await (const a of client.affiliates.listAll({ campaign_id: campaign.id, limit: 1 })) {
      ids.push(a.id);
    }
    expect(ids).toEqual(
      created
        .slice(0, 3)
        .reverse()
        .map((a) => a.id),
    );
    const fromPage2: string[] = [];
    for await (const l of client.links.listAll({ limit: 2, page: 2 })) fromPage2.push(l.id);
    expect(fromPage2).toHaveLength(3);
  });
});

describe('typed exceptions', () => {
  it('404: NotFoundError with the spec body', async () => {
    const id = randomUUID();
    const error = await rejection(merchantClient(merchant.api_secret).affiliates.get({ id }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.status).toBe(404);
    expect(error.body).toEqual({ error: `Affiliate not found: ${id}` });
    expect(error.requestId).toEqual(expect.any(String));
  });

  it('422: InvalidRequestError with error and details', async () => {
    const client = merchantClient(merchant.api_secret);
    const error = await rejection(
      client.affiliates.create({ first_name: ' ', last_name: 'B', email: 'not-an-email' }),
    );
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.status).toBe(422);
    expect(error.error).toBe('Could not create affiliate.');
    expect(error.details).toEqual(["First name can't be blank", 'Email is invalid']);
  });

  it('400: InvalidRequestError for a bad page value', async () => {
    const error = await rejection(
      merchantClient(merchant.api_secret).affiliates.list({ page: 'abc' }),
    );
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.status).toBe(400);
    expect(typeof error.error).toBe('string');
  });

  it('401: AuthenticationError for a wrong API secret', async () => {
    const client = createClient({
      baseUrl: gatewayUrl(),
      apiSecret: 'not-a-secret',
      fetch: conformingFetch,
    });
    const error = await rejection(client.affiliates.list());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.status).toBe(401);
    expect(error.body).toEqual({ error: 'Invalid API Secret.' });
    // The iterator throws the same way on its first page.
    const iterator = client.commissions.listAll();
    await expect(iterator.next()).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('429: RateLimitError says when to retry', async () => {
    const limited = await createMerchant({ rateLimit: 2 });
    const client = merchantClient(limited.api_secret);
    const answers = await Promise.allSettled([1, 2, 3, 4].map(() => client.campaigns.list()));
    const refused = answers.filter((a) => a.status === 'rejected');
    expect(refused.length).toBeGreaterThanOrEqual(2);
    const error = (refused[0] as PromiseRejectedResult).reason as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.status).toBe(429);
    expect(error.limit).toBe(2);
    expect(error.remaining).toBe(0);
    expect(error.retryAfterSeconds).toBeGreaterThan(0);
    expect(error.retryAfterSeconds).toBeLessThanOrEqual(error.windowSeconds!);
  });
});

describe('idempotency key', () => {
  it('replays a create retried with the same key instead of creating twice', async () => {
    const client = merchantClient(merchant.api_secret);
    const key = randomUUID();
    const input = {
      first_name: 'Once',
      last_name: 'Only',
      email: `once-${merchant.merchant_id}@example.com`,
    };
    const first = await client.request('createAffiliate', input, { idempotencyKey: key });
    const retry = await client.request('createAffiliate', input, { idempotencyKey: key });
    expect(retry.data.id).toBe(first.data.id);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const found = await client.affiliates.list({ email: input.email });
    expect(found.pagination.total_count).toBe(1);
  });
});

describe('conformance check of calls made through the client', () => {
  it('fails a call whose answer the OpenAPI document does not describe', async () => {
    // A stand-in that answers a documented route with a body the document does not allow.
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'x', unexpected: true }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const client = merchantClient('secret', `http://127.0.0.1:${port}`);
      const error = await client.affiliates.get({ id: 'x' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiConnectionError);
      expect((error as Error).message).toContain(
        'Response does not conform to the API contract: GET /v1/affiliates/x',
      );
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
