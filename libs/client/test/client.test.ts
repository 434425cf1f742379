/**
 * The client against a small real HTTP server (node:http): what goes on the wire for each kind
 * of operation, and how answers become results or typed exceptions. The end-to-end suites in
 * the root `test/` use the same client against the real gateway.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ApiConnectionError,
  ApiError,
  ApiTimeoutError,
  AuthenticationError,
  ConflictError,
  createClient,
  InvalidRequestError,
  METHOD_NAMES,
  NotFoundError,
  RateLimitError,
  ServerError,
} from '../src';
import { OPERATIONS } from '@aff/contracts';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

type Reply = { status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number };

let server: http.Server;
let baseUrl: string;
const seen: Seen[] = [];
let replies: ((req: Seen) => Reply)[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const request = { method: req.method!, url: req.url!, headers: req.headers, body };
      seen.push(request);
      const reply: Reply = (replies.shift() ?? (() => ({ status: 200, body: {} })))(request);
      const send = () => {
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen.length = 0;
  replies = [];
});

const envelope = (page: number, totalPages: number, data: unknown[]) => ({
  pagination: {
    previous_page: page > 1 ? page - 1 : null,
    current_page: page,
    next_page: page < totalPages ? page + 1 : null,
    count: data.length,
    limit: 2,
    total_pages: totalPages,
    total_count: 5,
  },
  data,
});

describe('requests', () => {
  it('sends the API secret as HTTP Basic user name with an empty password', async () => {
    const client = createClient({ baseUrl, apiSecret: 'sk_test' });
    await client.affiliates.list();
    expect(seen[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from('sk_test:').toString('base64')}`,
    );
    expect(seen[0]!.method).toBe('GET');
    expect(seen[0]!.url).toBe('/v1/affiliates');
  });

  it('puts path parameters in the path, query parameters in the query, the rest in a JSON body', async () => {
    const client = createClient({ baseUrl, apiSecret: 's' });
    await client.affiliates.update({ id: 'a/b', first_name: 'Jo', state: 'disabled' });
    expect(seen[0]).toMatchObject({ method: 'PUT', url: '/v1/affiliates/a%2Fb' });
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen[0]!.body)).toEqual({ first_name: 'Jo', state: 'disabled' });

    await client.commissions.list({
      affiliate_id: 'x',
      'state[]': ['due', 'paid'],
      page: 2,
      limit: 10,
      expand: 'campaign',
    });
    expect(seen[1]!.url).toBe(
      '/v1/commissions?affiliate_id=x&state%5B%5D=due&state%5B%5D=paid&page=2&limit=10&expand=campaign',
    );
    expect(seen[1]!.body).toBe('');
  });

  it('sends no body for a write without one, and the idempotency key only on writes', async () => {
    const client = createClient({ baseUrl, apiSecret: 's' });
    await client.payouts.pay({ id: 'p1' }, { idempotencyKey: 'k-1' });
    expect(seen[0]).toMatchObject({ method: 'PUT', url: '/v1/payouts/p1/pay', body: '' });
    expect(seen[0]!.headers['idempotency-key']).toBe('k-1');
    expect(seen[0]!.headers['content-type']).toBeUndefined();
    await client.call('createAffiliate', { first_name: 'A', last_name: 'B', email: 'a@b.cd' });
    expect(seen[1]!.headers['idempotency-key']).toBeUndefined();
  });

  it('refuses parameters the operation does not take and missing path parameters', async () => {
    const client = createClient({ baseUrl, apiSecret: 's' });
    await expect(client.call('getAffiliate', { id: '' })).rejects.toThrow(
      'getAffiliate needs the path parameter "id"',
    );
    await expect(
      client.call('listAffiliates', { nope: 1 } as unknown as { page: number }),
    ).rejects.toThrow('listAffiliates takes no parameter "nope"');
    await expect(
      client.call('receiveProcessorEvent' as 'getAffiliate', { id: 'x' }),
    ).rejects.toThrow('receiveProcessorEvent is not an operation of the merchant API');
    expect(seen).toHaveLength(0);
  });

  it('answers the body and, through request(), the status and headers', async () => {
    const client = createClient({ baseUrl, apiSecret: 's' });
    replies.push(() => ({
      status: 200,
      body: { id: 'c1', deleted: true },
      headers: { 'idempotent-replayed': 'true' },
    }));
    const result = await client.request('deleteCommission', { id: 'c1' });
    expect(result.data).toEqual({ id: 'c1', deleted: true });
    expect(result.headers.get('idempotent-replayed')).toBe('true');
  });
});

describe('pagination', () => {
  it('iterates every item of every page, following next_page', async () => {
    const client = createClient({ baseUrl, apiSecret: 's' });
    replies = [
      () => ({ status: 200, body: envelope(1, 3, [{ id: 1 }, { id: 2 }]) }),
      () => ({ status: 200, body: envelope(2, 3, [{ id: 3 }, { id: 4 }]) }),
      () => ({ status: 200, body: envelope(3, 3, [{ id: 5 }]) }),
    ];
    const ids: unknown[] = [];
    for await (const affiliate of client.affiliates.listAll({ limit: 2, campaign_id: 'c' })) {
      ids.push(affiliate.id);
    }
    expect(ids).toEqual([1, 2, 3, 4, 5]);
    expect(seen.map((s) => s.url)).toEqual([
      '/v1/affiliates?limit=2&campaign_id=c&page=1',
      '/v1/affiliates?limit=2&campaign_id=c&page=2',
      '/v1/affiliates?limit=2&campaign_id=c&page=3',
    ]);
  });

  it('stops early when the caller breaks out, and never loops on a stuck next_page', async () => {
    const client = createClient({ baseUrl, apiSecret: 's' });
    replies = [() => ({ status: 200, body: envelope(1, 3, [{ id: 1 }, { id: 2 }]) })];
    for await (const item of client.webhookEndpoints.listAll()) {
      expect(item).toEqual({ id: 1 });
      break;
    }
    expect(seen).toHaveLength(1);
    const stuck = envelope(2, 3, [{ id: 9 }]);
    stuck.pagination.next_page = 2;
    replies = [() => ({ status: 200, body: stuck })];
    const pages = [];
    for await (const page of client.pages('listCampaigns', { page: 2 })) pages.push(page);
    expect(pages).toHaveLength(1);
  });
});

describe('errors', () => {
  const cases: [number, Record<string, string>, new (...args: never[]) => ApiError][] = [
    [400, {}, InvalidRequestError],
    [401, {}, AuthenticationError],
    [404, {}, NotFoundError],
    [409, { 'retry-after': '1' }, ConflictError],
    [413, {}, InvalidRequestError],
    [422, {}, InvalidRequestError],
    [429, { 'retry-after': '7' }, RateLimitError],
    [500, {}, ServerError],
    [503, {}, ServerError],
    [418, {}, ApiError],
  ];
  it.each(cases.map(([status, headers, type]) => [status, type.name, headers, type] as const))(
    '%i becomes %s',
    async (status, _name, headers, type) => {
      const client = createClient({ baseUrl, apiSecret: 's' });
      replies.push(() => ({ status, body: { error: `status ${status}` }, headers }));
      const error = await client.affiliates.get({ id: 'x' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(type);
      expect(error).toMatchObject({ status, error: `status ${status}`, name: type.name });
    },
  );

  it('keeps the spec error body: error and details', async () => {
    const client = createClient({ baseUrl, apiSecret: 's' });
    const body = { error: 'Could not create affiliate.', details: ["Email can't be blank"] };
    replies.push(() => ({ status: 422, body, headers: { 'x-request-id': 'req-1' } }));
    const error = (await client.affiliates
      .create({ first_name: 'A', last_name: 'B', email: '' })
      .catch((e: unknown) => e)) as InvalidRequestError;
    expect(error.body).toEqual(body);
    expect(error.details).toEqual(["Email can't be blank"]);
    expect(error.requestId).toBe('req-1');
    expect(error.message).toBe('POST /v1/affiliates answered 422: Could not create affiliate.');
  });

  it('reads the retry information of a 429 from Retry-After and the RateLimit fields', async () => {
    const client = createClient({ baseUrl, apiSecret: 's' });
    replies.push(() => ({
      status: 429,
      body: { error: 'Rate limit exceeded.' },
      headers: {
        'retry-after': '12',
        ratelimit: '"default";r=0;t=12',
        'ratelimit-policy': '"default";q=45;w=30',
      },
    }));
    const error = (await client.campaigns.list().catch((e: unknown) => e)) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({
      retryAfterSeconds: 12,
      remaining: 0,
      limit: 45,
      windowSeconds: 30,
    });
  });

  it('wraps a body that is not the spec format', async () => {
    const client = createClient({ baseUrl, apiSecret: 's' });
    replies.push(() => ({
      status: 502,
      body: 'Bad gateway',
      headers: { 'content-type': 'text/html' },
    }));
    const error = (await client.links.list().catch((e: unknown) => e)) as ServerError;
    expect(error).toBeInstanceOf(ServerError);
    expect(error.error).toBe('"Bad gateway"');
  });

  it('gives up after the timeout, and reports a refused connection', async () => {
    const client = createClient({ baseUrl, apiSecret: 's', timeoutMs: 50 });
    replies.push(() => ({ status: 200, body: {}, delayMs: 500 }));
    await expect(client.affiliates.list()).rejects.toBeInstanceOf(ApiTimeoutError);
    const closed = createClient({ baseUrl: 'http://127.0.0.1:9', apiSecret: 's' });
    const error = await closed.affiliates.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiConnectionError);
    expect(error).not.toBeInstanceOf(ApiTimeoutError);
  });
});

describe('generated from the contract map', () => {
  it('has a method for every operation the API secret reaches, and for nothing else', () => {
    const merchant = Object.values(OPERATIONS)
      .filter((operation) => operation.auth === 'apiSecret')
      .map((operation) => operation.name)
      .sort();
    expect(Object.keys(METHOD_NAMES).sort()).toEqual(merchant);
    const client = createClient({ baseUrl, apiSecret: 's' }) as unknown as Record<
      string,
      Record<string, unknown>
    >;
    for (const [namespace, method, iterator] of Object.values(
      METHOD_NAMES,
    ) as readonly (readonly string[])[]) {
      expect(typeof client[namespace!]![method!]).toBe('function');
      if (iterator) expect(typeof client[namespace!]![iterator]).toBe('function');
    }
  });

  it('has an iterator for exactly the operations that take page', () => {
    for (const [name, names] of Object.entries(METHOD_NAMES)) {
      const operation = OPERATIONS[name as keyof typeof OPERATIONS];
      const pageable = 'query' in operation && 'page' in operation.query.shape;
      expect([name, names.length === 3]).toEqual([name, pageable]);
    }
  });

  it('never takes one field name for two places (params, query, body)', () => {
    for (const name of Object.keys(METHOD_NAMES)) {
      const operation = OPERATIONS[name as keyof typeof OPERATIONS] as Record<string, any>;
      const keys = ['params', 'query', 'body'].flatMap((part) =>
        Object.keys(operation[part]?.shape ?? {}),
      );
      expect([name, new Set(keys).size]).toEqual([name, keys.length]);
    }
  });
});

describe('types', () => {
  it('types inputs and outputs from the map', async () => {
    const client = createClient({ baseUrl, apiSecret: 's' });
    replies.push(() => ({ status: 200, body: { id: 'a1', email: 'a@b.cd' } }));
    const created = await client.affiliates.create({ first_name: 'A', last_name: 'B', email: 'e' });
    const email: string = created.email;
    expect(email).toBe('a@b.cd');
  });
  // What does not compile is checked by tsc, not jest: client.type-test.ts.
});
