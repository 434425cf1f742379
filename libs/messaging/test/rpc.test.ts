/** Request/reply over a real NATS server: replies, errors, and a missing or silent service. */
import { AppError } from '@aff/api';
import { createLogger } from '@aff/logging';
import type { ServiceName } from '@aff/contracts';
import { RpcClient, connectNats, ok, serveHandlers, type NatsConnection } from '../src';

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
