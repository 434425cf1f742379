/**
 * Request/reply over a real NATS server: replies, errors, a missing or silent service, and a
 * body checked against its operation's schema before the handler runs.
 */
import { AppError } from '@aff/api';
import { createLogger } from '@aff/logging';
import { defineOperation, type ServiceName } from '@aff/contracts';
import { z } from 'zod';
import {
  RpcClient,
  connectNats,
  ok,
  serveHandlers,
  serveOperations,
  type NatsConnection,
} from '../src';

// Names no real service uses, so replicas running for other tests never answer here.
const TEST_SERVICE = 'rpc-test' as ServiceName;
const ABSENT_SERVICE = 'rpc-absent' as ServiceName;

const log = createLogger('rpc-test', 'silent');
let nc: NatsConnection;
beforeAll(async () => {
  nc = await connectNats(process.env.NATS_URL!, 'rpc-test', log);
});
afterAll(async () => {
  await nc.close();
});

const request = (merchant: string) => ({
  merchant_id: merchant,
  params: {},
  query: {},
  body: {},
  expand: [],
  api_key_id: null,
});

it('routes an operation to its handler and maps errors to replies', async () => {
  const sub = serveHandlers(
    nc,
    TEST_SERVICE,
    {
      echo: async (req) => ok({ merchant: req.merchant_id }),
      missing: async () => {
        throw new AppError('not_found', 'Thing not found: 1');
      },
      crash: async () => {
        throw new Error('boom');
      },
      // A database read past its maxTimeMS (a list bounded by the time the gateway waits).
      slowRead: async () => {
        throw Object.assign(new Error('operation exceeded time limit'), {
          code: 50,
          codeName: 'MaxTimeMSExpired',
        });
      },
    },
    log,
  );
  try {
    const client = new RpcClient(nc, 2000);
    expect(await client.call(TEST_SERVICE, 'echo', request('m1'), 'r1')).toEqual({
      status: 200,
      body: { merchant: 'm1' },
    });
    expect(await client.call(TEST_SERVICE, 'missing', request('m1'), 'r2')).toEqual({
      status: 404,
      body: { error: 'Thing not found: 1' },
    });
    expect(await client.call(TEST_SERVICE, 'crash', request('m1'), 'r3')).toEqual({
      status: 500,
      body: { error: 'Internal server error.' },
    });
    expect((await client.call(TEST_SERVICE, 'nope', request('m1'), 'r4')).status).toBe(404);
    expect(await client.call(TEST_SERVICE, 'slowRead', request('m1'), 'r5')).toEqual({
      status: 504,
      body: { error: `Service timed out: ${TEST_SERVICE}. Try again shortly.` },
    });
  } finally {
    sub.unsubscribe();
  }
});

it('fails fast with 503 when no replica serves the operation, 504 when it stays silent', async () => {
  const client = new RpcClient(nc, 300);
  await expect(client.call(ABSENT_SERVICE, 'anything', request('m'), 'r')).rejects.toMatchObject({
    status: 503,
  });
  const silent = nc.subscribe('rpc.rpc-absent.*', { callback: () => undefined });
  try {
    await expect(client.call(ABSENT_SERVICE, 'anything', request('m'), 'r')).rejects.toMatchObject({
      status: 504,
    });
  } finally {
    silent.unsubscribe();
  }
});

it('checks a body against the operation’s schema before its handler runs (422), and hands on the parsed value', async () => {
  const seen: unknown[] = [];
  const create = defineOperation({
    name: 'createThing',
    owner: TEST_SERVICE,
    auth: 'apiSecret',
    summary: 'Create a thing',
    body: z.object({
      name: z.string({ error: "Name can't be blank" }).trim().min(1, "Name can't be blank"),
      size: z.coerce.number({ error: 'Size is not a number' }).default(1),
    }),
    invalid: 'Could not create thing.',
    response: { status: 200, description: 'The thing' },
    errors: [422],
  });
  const sub = serveOperations(
    nc,
    TEST_SERVICE,
    [create],
    {
      createThing: async (req: { body: unknown }) => {
        seen.push(req.body);
        return ok({ created: true });
      },
    },
    log,
  );
  try {
    const client = new RpcClient(nc, 2000);
    const invalid = await client.call(
      TEST_SERVICE,
      'createThing',
      { ...request('m1'), body: { name: ' ', size: 'big' } },
      'r1',
    );
    expect(invalid).toEqual({
      status: 422,
      body: {
        error: 'Could not create thing.',
        details: ["Name can't be blank", 'Size is not a number'],
      },
    });
    expect(seen).toEqual([]);
    const valid = await client.call(
      TEST_SERVICE,
      'createThing',
      { ...request('m1'), body: { name: ' Lamp ', size: '3' } },
      'r2',
    );
    expect(valid).toEqual({ status: 200, body: { created: true } });
    expect(seen).toEqual([{ name: 'Lamp', size: 3 }]);
  } finally {
    sub.unsubscribe();
  }
});
