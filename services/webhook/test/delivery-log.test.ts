/**
 * The delivery log as the REST API shows it, over the real MongoDB-protocol server: attempts
 * embedded in their delivery, and, for a delivery stored before attempts were embedded, its
 * lines in the old attempt log (`webhook_attempts`) first, then those added since.
 */
import { randomUUID } from 'node:crypto';
import { DeliveryUseCases } from '../src/domain/deliveries';
import type { EndpointUseCases } from '../src/domain/endpoints';
import { toDue } from '../src/domain/records';
import { openStores, type Stores } from './support/delivery-store';

let s: Stores;
beforeAll(async () => {
  s = await openStores('webhook_log_test');
});
afterAll(() => s.close());

const merchant = randomUUID();
const endpointId = randomUUID();
const ctx = { merchantId: merchant } as never;
const page = { page: 1, limit: 25, skip: 0 };

function log() {
  const endpoints = { getRecord: async () => ({}) } as unknown as EndpointUseCases;
  return new DeliveryUseCases(s.deliveries, s.attempts, s.schedule, endpoints, {
    offer: () => undefined,
  });
}

it('shows an old delivery with its old lines first, then the attempts embedded since', async () => {
  const start = Date.now() - 60_000;
  const at = (ms: number) => new Date(start + ms);
  const legacy = {
    _id: randomUUID(),
    merchant_id: merchant,
    endpoint_id: endpointId,
    event_id: randomUUID(),
    event_type: 'affiliate.created',
    event_created_at: at(0).toISOString(),
    object_json: '{}',
    trace: {},
    state: 'pending',
    first_attempt_at: at(0),
    next_attempt_at: at(30),
    lease_until: null,
    lease_token: null,
    lease_request_id: null,
    lease_started_at: null,
    created_at: at(0),
    updated_at: at(10),
    pending_events: [],
  };
  await s.models.delivery.collection.insertOne(legacy as never);
  await s.models.attempt.collection.insertOne({
    _id: randomUUID(),
    merchant_id: merchant,
    delivery_id: legacy._id,
    endpoint_id: endpointId,
    request_id: 'old-request',
    started_at: at(1),
    lease_until: at(15_001),
    finished_at: at(5),
    response_status: 503,
    duration_ms: 4,
    error: null,
  } as never);

  // The retry is made by the new code: its attempt is embedded in the old document.
  const claim = (await s.claims.claim(toDue(legacy), new Date(), 10_000))!;
  await s.claims.finish(
    claim,
    { response_status: 200, duration_ms: 2, error: null },
    { state: 'delivered', next_attempt_at: null, first_attempt_at: at(0) },
  );

  const shown = await log().list(ctx, endpointId, [], page);
  expect(shown.data).toHaveLength(1);
  expect(shown.data[0]).toMatchObject({ id: legacy._id, state: 'delivered' });
  expect(shown.data[0]!.attempts.map((a) => [a.request_id, a.response_status])).toEqual([
    ['old-request', 503],
    [claim.requestId, 200],
  ]);
});
