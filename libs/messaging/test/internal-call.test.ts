/**
 * Internal operations over a real NATS server: the caller sends the typed input as is (no HTTP
 * envelope), the handler gets it validated, the caller gets the reply body validated, and
 * refusals come back as the AppError the handler threw.
 */
import { z } from 'zod';
import { AppError } from '@aff/api';
import { createLogger } from '@aff/logging';
import { defineOperation, type ServiceName } from '@aff/contracts';
import {
  RpcClient,
  callInternal,
  connectNats,
  decodeJson,
  ok,
  serveOperations,
  type NatsConnection,
  type RpcContext,
  type Subscription,
} from '../src';

// Names no real service uses, so replicas running for other tests never answer here.
const TEST_SERVICE = 'internal-test' as ServiceName;

const lookup = defineOperation({
  name: 'lookup',
  owner: TEST_SERVICE,
  auth: 'internal',
  summary: 'Test operation',
  input: z.object({
    merchant_id: z.string(),
    token: z.string().min(1, 'token is required'),
    limit: z.number().int().default(10),
  }),
  response: {
    status: 200,
    description: 'The thing',
    body: z.object({ token: z.string(), limit: z.number(), request_id: z.string() }),
  },
  errors: [404],
});

const publicEcho = defineOperation({
  name: 'publicEcho',
  owner: TEST_SERVICE,
  auth: 'apiSecret',
  summary: 'Test operation with the request envelope',
  response: { status: 200, description: 'The merchant' },
  errors: [],
});

const log = createLogger('internal-test', 'silent');
let nc: NatsConnection;
let rpc: RpcClient;
let sub: Subscription;
const seen: unknown[] = [];

beforeAll(async () => {
  nc = await connectNats(process.env.NATS_URL!, 'internal-test', log);
  rpc = new RpcClient(nc, 2000);
  sub = serveOperations(
    nc,
    TEST_SERVICE,
    [lookup, publicEcho],
    {
      lookup: async (input: z.output<typeof lookup.input>, ctx: RpcContext) => {
        seen.push(input);
        if (input.token === 'unknown')
          throw new AppError('not_found', 'Link not found: unknown', ['no such token']);
        if (input.token === 'broken') return { token: 42 };
        return { token: input.token, limit: input.limit, request_id: ctx.requestId };
      },
      publicEcho: async (req: { merchant_id: string }) => ok({ merchant: req.merchant_id }),
    },
    log,
  );
});
afterAll(async () => {
  sub.unsubscribe();
  await nc.close();
});

it('sends the input as is and returns the validated, typed reply body', async () => {
  const body = await callInternal(rpc, lookup, { merchant_id: 'm1', token: 'abc' }, 'req-1');
  // Typed from the operation's response schema: a wrong field would not compile.
  const limit: number = body.limit;
  expect(limit).toBe(10);
  expect(body).toEqual({ token: 'abc', limit: 10, request_id: 'req-1' });
  // The handler got the schema's output (the default filled in).
  expect(seen.at(-1)).toEqual({ merchant_id: 'm1', token: 'abc', limit: 10 });
});

it('puts no envelope on the wire, only the input, with request id and merchant headers', async () => {
  const raw = nc.subscribe('rpc.internal-wire.lookup', { max: 1 });
  const wireLookup = { ...lookup, owner: 'internal-wire' as ServiceName };
  const call = callInternal(rpc, wireLookup, { merchant_id: 'm2', token: 't' }, 'req-2');
  for await (const msg of raw) {
    expect(decodeJson(msg.data)).toEqual({ merchant_id: 'm2', token: 't' });
    expect(msg.headers?.get('x-request-id')).toBe('req-2');
    expect(msg.headers?.get('x-merchant-id')).toBe('m2');
    msg.respond(JSON.stringify({ status: 200, body: { token: 't', limit: 1, request_id: 'x' } }));
  }
  await expect(call).resolves.toEqual({ token: 't', limit: 1, request_id: 'x' });
});

it("surfaces the handler's refusal as the same AppError", async () => {
  const refused = await callInternal(
    rpc,
    lookup,
    { merchant_id: 'm1', token: 'unknown' },
    'req-3',
  ).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(AppError);
  expect(refused).toMatchObject({
    status: 404,
    code: 'not_found',
    message: 'Link not found: unknown',
    details: ['no such token'],
    retryable: false,
  });
});

it('answers input that breaks the schema with a 400 and its messages, before the handler', async () => {
  const before = seen.length;
  const reply = await rpc.send(TEST_SERVICE, 'lookup', { merchant_id: 'm1', token: '' }, 'req-4');
  expect(reply).toEqual({
    status: 400,
    body: { error: 'Invalid input of lookup', details: ['token is required'] },
  });
  // The typed client sees the same refusal as an AppError.
  await expect(
    callInternal(rpc, lookup, { merchant_id: 'm1', token: '' }, 'req-5'),
  ).rejects.toMatchObject({ status: 400, details: ['token is required'] });
  expect(seen.length).toBe(before);
});

it('refuses a reply body that breaks the response schema', async () => {
  await expect(
    callInternal(rpc, lookup, { merchant_id: 'm1', token: 'broken' }, 'req-6'),
  ).rejects.toMatchObject({ status: 500, message: 'Malformed reply of lookup' });
});

it('still serves public operations of the same service with the request envelope', async () => {
  const reply = await rpc.call(
    TEST_SERVICE,
    'publicEcho',
    { merchant_id: 'm9', params: {}, query: {}, body: {}, expand: [], api_key_id: null },
    'req-7',
  );
  expect(reply).toEqual({ status: 200, body: { merchant: 'm9' } });
});

it('fails fast with a retryable 503 when no replica serves the operation', async () => {
  const absent = { ...lookup, owner: 'internal-absent' as ServiceName };
  await expect(
    callInternal(rpc, absent, { merchant_id: 'm', token: 't' }, 'req-8'),
  ).rejects.toMatchObject({ status: 503, retryable: true });
});
