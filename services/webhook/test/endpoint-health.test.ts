/**
 * Endpoint health over the real MongoDB-protocol server: healthy successes write nothing, the
 * first failure starts a run (`failing_since`), a success ends it, and a run as long as the
 * disable period disables the endpoint with `webhook_endpoint.disabled` in its outbox.
 */
import type { Connection } from 'mongoose';
import { webhookEndpointDisabledSchema } from '@aff/contracts';
import type { PendingEvent } from '@aff/messaging';
import { TenantRepository, connectMongo } from '@aff/mongo';
import { EndpointRepository } from '../src/data/endpoint.repository';
import { endpointModel, type EndpointDoc } from '../src/data/endpoint.schema';
import { EndpointHealth, disabledReason } from '../src/domain/endpoint-health';
import { anEndpoint } from './support/endpoint-fixture';

const PERIOD_MS = 60_000;

let mongo: Connection;
let endpoints: TenantRepository<EndpointDoc>;
let changed: string[];
let relayed: PendingEvent[];
let health: EndpointHealth;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `webhook_health_test_${Date.now()}`);
  const model = endpointModel(mongo);
  await model.init();
  endpoints = new TenantRepository(model);
  health = new EndpointHealth(
    new EndpointRepository(model, { relay: (pending) => relayed.push(...pending) }),
    { changed: (merchantId) => changed.push(merchantId) },
    { disableAfterMs: PERIOD_MS, disableAfterLabelMs: 5 * 86_400_000 },
  );
});
beforeEach(() => {
  changed = [];
  relayed = [];
});
afterAll(async () => {
  await mongo.dropDatabase();
  await mongo.close();
});

async function addEndpoint(fields: Partial<EndpointDoc> = {}): Promise<EndpointDoc> {
  const { record } = await endpoints.insert(anEndpoint(fields));
  return (await endpoints.findById(record.merchant_id, record._id))!;
}

const stored = async (e: EndpointDoc) => (await endpoints.findById(e.merchant_id, e._id))!;
const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);
const failure = (startMs: number, endMs = startMs + 10) => ({
  succeeded: false,
  startedAt: at(startMs),
  finishedAt: at(endMs),
});
const success = (ms: number) => ({ succeeded: true, startedAt: at(ms), finishedAt: at(ms + 5) });

describe('endpoint health', () => {
  it('writes nothing for the successes of a healthy endpoint', async () => {
    const endpoint = await addEndpoint();
    await health.record(endpoint, success(0));
    await health.record(endpoint, success(1000));
    expect(await stored(endpoint)).toEqual(endpoint);
    expect(changed).toEqual([]);
  });

  it('starts a run at the first failure and ends it at the next success', async () => {
    const endpoint = await addEndpoint();
    await health.record(endpoint, failure(0));
    const failing = await stored(endpoint);
    expect(failing.failing_since).toEqual(at(0));
    expect(changed).toEqual([endpoint.merchant_id]);

    // A later failure (even from a stale copy that missed the run) keeps the run's start.
    await health.record(endpoint, failure(500));
    await health.record(failing, failure(1000));
    expect((await stored(endpoint)).failing_since).toEqual(at(0));

    await health.record(failing, success(2000));
    expect((await stored(endpoint)).failing_since).toBeNull();
    expect((await stored(endpoint)).enabled).toBe(true);
  });

  it('disables the endpoint once every attempt failed for the period, with the event in its outbox', async () => {
    const endpoint = await addEndpoint({ events: ['affiliate.created'] });
    await health.record(endpoint, failure(0));
    const failing = await stored(endpoint);
    await health.record(failing, failure(PERIOD_MS - 100, PERIOD_MS - 1));
    expect((await stored(endpoint)).enabled).toBe(true);

    await health.record(failing, failure(PERIOD_MS - 5, PERIOD_MS + 5));
    const disabled = await stored(endpoint);
    expect(disabled).toMatchObject({
      enabled: false,
      disabled_at: at(PERIOD_MS + 5),
      disabled_reason: 'Every delivery attempt failed for 5 days',
      failing_since: at(0),
    });
    expect(disabled.pending_events).toHaveLength(1);
    const event = disabled.pending_events[0]!.event;
    expect(event).toMatchObject({
      type: 'webhook_endpoint.disabled',
      merchant_id: endpoint.merchant_id,
    });
    const data = webhookEndpointDisabledSchema.parse(event.data);
    expect(data).toMatchObject({
      id: endpoint._id,
      url: endpoint.url,
      events: ['affiliate.created'],
      enabled: false,
      disabled_at: at(PERIOD_MS + 5).toISOString(),
      failing_since: at(0).toISOString(),
    });
    expect(data).not.toHaveProperty('secret');
    expect(relayed.map((p) => p.event.id)).toEqual([event.id]);

    // Disabled once: a late failure from a stale copy queues nothing more.
    await health.record(failing, failure(PERIOD_MS * 2));
    expect((await stored(endpoint)).pending_events).toHaveLength(1);
  });

  it('does not disable from a stale copy when a success ended the run meanwhile', async () => {
    const endpoint = await addEndpoint();
    await health.record(endpoint, failure(0));
    const staleFailing = await stored(endpoint);
    await health.record(staleFailing, success(100)); // another replica's success
    await health.record(staleFailing, failure(PERIOD_MS * 2));
    const after = await stored(endpoint);
    expect(after.enabled).toBe(true);
    expect(after.pending_events).toEqual([]);
  });

  it('words the reason with the period as configured', () => {
    expect(disabledReason(5 * 86_400_000)).toBe('Every delivery attempt failed for 5 days');
    expect(disabledReason(86_400_000)).toBe('Every delivery attempt failed for 1 day');
    expect(disabledReason(16 * 3_600_000)).toBe('Every delivery attempt failed for 16 hours');
    expect(disabledReason(90_000)).toBe('Every delivery attempt failed for 90 seconds');
  });
});
