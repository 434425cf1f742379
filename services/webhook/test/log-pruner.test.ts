/**
 * Retention of the delivery log over the real MongoDB-protocol server: finished deliveries
 * older than the cut-off go with their attempts; pending ones stay however old, and so does
 * everything that finished after the cut-off.
 */
import { randomUUID } from 'node:crypto';
import type { Connection, Model } from 'mongoose';
import { connectMongo } from '@aff/mongo';
import { attemptModel } from '../src/data/attempt.schema';
import { deliveryModel, type DeliveryDoc } from '../src/data/delivery.schema';
import { endpointModel, type EndpointDoc } from '../src/data/endpoint.schema';
import { LogPruner } from '../src/data/log-pruner';
import type { AttemptRecord, DeliveryState } from '../src/domain/records';

let mongo: Connection;
let endpoints: Model<EndpointDoc>;
let deliveries: Model<DeliveryDoc>;
let attempts: Model<AttemptRecord>;
let pruner: LogPruner;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `webhook_prune_test_${Date.now()}`);
  endpoints = endpointModel(mongo);
  deliveries = deliveryModel(mongo);
  attempts = attemptModel(mongo);
  await Promise.all([endpoints.init(), deliveries.init(), attempts.init()]);
  pruner = new LogPruner(endpoints, deliveries, attempts);
});
afterAll(async () => {
  await mongo.dropDatabase();
  await mongo.close();
});

const DAY = 86_400_000;
const now = Date.now();
const ago = (days: number) => new Date(now - days * DAY);

async function addEndpoint() {
  const merchant = randomUUID();
  const endpoint = {
    _id: randomUUID(),
    merchant_id: merchant,
    url: 'https://example.com/hook',
    events: ['*'],
    enabled: true,
    secret: 'whsec_AAAA',
    created_at: ago(100),
    updated_at: ago(100),
    pending_events: [],
  };
  await endpoints.collection.insertOne(endpoint as never);
  return endpoint;
}

/** A delivery created `createdDays` ago, last changed (finished) `updatedDays` ago, with 2 attempts. */
async function addDelivery(
  endpoint: { _id: string; merchant_id: string },
  state: DeliveryState,
  createdDays: number,
  updatedDays: number,
): Promise<string> {
  const id = randomUUID();
  await deliveries.collection.insertOne({
    _id: id,
    merchant_id: endpoint.merchant_id,
    endpoint_id: endpoint._id,
    event_id: randomUUID(),
    event_type: 'affiliate.created',
    event_created_at: ago(createdDays).toISOString(),
    object_json: '{}',
    trace: {},
    state,
    first_attempt_at: ago(createdDays),
    next_attempt_at: state === 'pending' ? new Date(now + DAY) : null,
    created_at: ago(createdDays),
    updated_at: ago(updatedDays),
    pending_events: [],
  } as never);
  for (const offset of [0, 0.5]) {
    const started = ago(createdDays - Math.min(offset, createdDays - updatedDays));
    await attempts.collection.insertOne({
      _id: randomUUID(),
      merchant_id: endpoint.merchant_id,
      delivery_id: id,
      endpoint_id: endpoint._id,
      request_id: randomUUID(),
      started_at: started,
      lease_until: started,
      finished_at: started,
      response_status: 500,
      duration_ms: 3,
      error: null,
    } as never);
  }
  return id;
}

const remaining = async (endpointId: string) =>
  (await deliveries.find({ endpoint_id: endpointId }).lean().exec()).map((d) => d._id).sort();
const attemptsOf = async (deliveryId: string) =>
  attempts.countDocuments({ delivery_id: deliveryId }).exec();

describe('delivery log retention', () => {
  it('deletes finished deliveries older than the cut-off with their attempts, and nothing else', async () => {
    const endpoint = await addEndpoint();
    const other = await addEndpoint();
    const oldDelivered = await addDelivery(endpoint, 'delivered', 40, 40);
    const oldFailed = await addDelivery(endpoint, 'failed', 36, 33);
    const oldPending = await addDelivery(endpoint, 'pending', 45, 1); // redelivered lately
    const finishedLately = await addDelivery(endpoint, 'failed', 32, 2); // redelivered, failed again
    const recent = await addDelivery(endpoint, 'delivered', 3, 3);
    const otherOld = await addDelivery(other, 'delivered', 50, 50);

    const pruned = await pruner.prune(ago(30));
    expect(pruned).toEqual({ deliveries: 3, attempts: 6 });
    expect(await remaining(endpoint._id)).toEqual([oldPending, finishedLately, recent].sort());
    expect(await remaining(other._id)).toEqual([]);
    for (const gone of [oldDelivered, oldFailed, otherOld]) expect(await attemptsOf(gone)).toBe(0);
    for (const kept of [oldPending, finishedLately, recent]) expect(await attemptsOf(kept)).toBe(2);

    expect(await pruner.prune(ago(30))).toEqual({ deliveries: 0, attempts: 0 });
  });

  it('goes through more deliveries than one page, skipping pending ones', async () => {
    const endpoint = await addEndpoint();
    const pending: string[] = [];
    for (let i = 0; i < 520; i++) {
      await deliveries.collection.insertOne({
        _id: `p${i}-${endpoint._id}`,
        merchant_id: endpoint.merchant_id,
        endpoint_id: endpoint._id,
        event_id: randomUUID(),
        event_type: 'affiliate.created',
        event_created_at: ago(60).toISOString(),
        object_json: '{}',
        trace: {},
        state: i % 2 === 0 ? 'pending' : 'delivered',
        first_attempt_at: null,
        next_attempt_at: null,
        created_at: new Date(now - 60 * DAY + i * 1000),
        updated_at: ago(59),
        pending_events: [],
      } as never);
      if (i % 2 === 0) pending.push(`p${i}-${endpoint._id}`);
    }
    const pruned = await pruner.prune(ago(30));
    expect(pruned.deliveries).toBe(260);
    expect(await remaining(endpoint._id)).toEqual(pending.sort());
  }, 60_000);
});
