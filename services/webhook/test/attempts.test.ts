import { Webhook } from 'standardwebhooks';
import type { Claim, DeliveryClaims } from '../src/domain/delivery-claims';
import type { EndpointDirectory } from '../src/data/endpoint-directory';
import type { EndpointRecord } from '../src/domain/records';
import { DeliveryAttempts } from '../src/domain/attempts';
import type { OutboundRequest, SendResult } from '../src/domain/ports';
import { generateSecret } from '../src/domain/signature';

const startedAt = new Date();
const endpoint: EndpointRecord = {
  _id: 'ep1',
  merchant_id: 'm1',
  url: 'https://shop.example.com/hooks',
  events: ['*'],
  enabled: true,
  secret: generateSecret(),
  created_at: startedAt,
  updated_at: startedAt,
};
const claim: Claim = {
  token: 'd1:1',
  slot: startedAt,
  requestId: 'req-1',
  startedAt,
  leaseUntil: new Date(startedAt.getTime() + 15_000),
  scheduled: true,
  stored: true,
  delivery: {
    _id: 'd1',
    merchant_id: 'm1',
    endpoint_id: 'ep1',
    event_id: 'ev1',
    event_type: 'affiliate.created',
    event_created_at: '2025-05-01T09:59:59.000Z',
    object_json: '{"id":"a1","referrals":0}',
    trace: {},
    state: 'pending',
    first_attempt_at: null,
    next_attempt_at: startedAt,
    created_at: startedAt,
    updated_at: startedAt,
  },
};

const due = { id: 'd1', merchant_id: 'm1', slot: startedAt.getTime(), endpoint_id: 'ep1' };

function setUp(answer: SendResult, found: EndpointRecord | null = endpoint) {
  const sent: OutboundRequest[] = [];
  const finished: unknown[][] = [];
  const claims = {
    claim: async () => claim,
    finish: async (...args: unknown[]) => {
      finished.push(args);
      return true;
    },
  } as unknown as DeliveryClaims;
  const endpoints = { find: async () => found } as unknown as EndpointDirectory;
  const sender = {
    send: async (request: OutboundRequest) => {
      sent.push(request);
      return answer;
    },
  };
  const reports: unknown[][] = [];
  const health = {
    record: async (...args: unknown[]) => {
      reports.push(args);
    },
  };
  const attempts = new DeliveryAttempts(
    claims,
    endpoints,
    sender,
    { timeScale: 1, leaseMs: 15_000 },
    health,
  );
  return { attempts, sent, finished, reports };
}

const answered = (status: number | null, error: string | null = null): SendResult => ({
  status,
  durationMs: 12.4,
  error,
  retryAfterMs: null,
});

describe('a delivery attempt', () => {
  it('sends the signed spec body with the delivery id as webhook-id and records the 200', async () => {
    const { attempts, sent, finished } = setUp(answered(200));
    expect(await attempts.attempt(due)).toBe(true);
    const [request] = sent;
    expect(request!.url).toBe(endpoint.url);
    expect(request!.headers['webhook-id']).toBe('d1');
    expect(JSON.parse(request!.body)).toEqual({
      object: { id: 'a1', referrals: 0 },
      event: {
        id: 'ev1',
        type: 'affiliate.created',
        created_at: '2025-05-01T09:59:59.000Z',
        api_version: 'v1',
      },
      request: { id: 'req-1' },
    });
    expect(new Webhook(endpoint.secret).verify(request!.body, request!.headers)).toBeTruthy();
    expect(finished[0]).toEqual([
      claim,
      { response_status: 200, duration_ms: 12, error: null },
      { state: 'delivered', next_attempt_at: null, first_attempt_at: startedAt },
    ]);
  });

  it('schedules the next slot after a failure, counted from the first attempt', async () => {
    const { attempts, finished } = setUp(answered(500));
    await attempts.attempt(due);
    expect(finished[0]![2]).toEqual({
      state: 'pending',
      next_attempt_at: new Date(startedAt.getTime() + 30_000),
      first_attempt_at: startedAt,
    });
  });

  it('sends nothing to a disabled endpoint but keeps the schedule', async () => {
    const { attempts, sent, finished } = setUp(answered(200), { ...endpoint, enabled: false });
    await attempts.attempt(due);
    expect(sent).toEqual([]);
    expect(finished[0]![1]).toEqual({
      response_status: null,
      duration_ms: 0,
      error: 'Endpoint is disabled',
    });
    expect(finished[0]![2]).toMatchObject({ state: 'pending' });
  });

  it('fails the delivery of a deleted endpoint without retrying', async () => {
    const { attempts, sent, finished } = setUp(answered(200), null);
    await attempts.attempt(due);
    expect(sent).toEqual([]);
    expect(finished[0]![2]).toEqual({
      state: 'failed',
      next_attempt_at: null,
      first_attempt_at: startedAt,
    });
  });

  it('stores nothing and sends nothing for a fresh delivery whose endpoint was deleted since', async () => {
    const { attempts, sent, finished } = setUp(answered(200), null);
    const fresh = { ...claim, stored: false, scheduled: false };
    expect(await attempts.attempt({ ...due, held: fresh })).toBe(true);
    expect(sent).toEqual([]);
    expect(finished).toEqual([]);
  });

  it('leaves a fresh delivery that waited past half its lease unstored to its event', async () => {
    const { attempts, sent, finished } = setUp(answered(200));
    const old = { ...claim, stored: false, leaseUntil: new Date(Date.now() + 1000) };
    expect(await attempts.attempt({ ...due, held: old })).toBe(false);
    expect([...sent, ...finished]).toEqual([]);
  });

  it('reports what the endpoint answered to its health, and only that', async () => {
    const ok = setUp(answered(200));
    await ok.attempts.attempt(due);
    expect(ok.reports).toEqual([
      [endpoint, { succeeded: true, startedAt, finishedAt: expect.any(Date) }],
    ]);
    const refused = setUp(answered(null, 'connect ECONNREFUSED 127.0.0.1:4000'));
    await refused.attempts.attempt(due);
    expect(refused.reports[0]![1]).toMatchObject({ succeeded: false });
    // Not the endpoint's doing: a disabled or deleted endpoint is not sent anything.
    const disabled = setUp(answered(200), { ...endpoint, enabled: false });
    await disabled.attempts.attempt(due);
    const deleted = setUp(answered(200), null);
    await deleted.attempts.attempt(due);
    expect([...disabled.reports, ...deleted.reports]).toEqual([]);
  });

  it('signs with the previous secret too while a rotation overlaps', async () => {
    const previous = generateSecret();
    const rotating = {
      ...endpoint,
      previous_secret: previous,
      previous_secret_expires_at: new Date(Date.now() + 60_000),
    };
    const { attempts, sent } = setUp(answered(200), rotating);
    await attempts.attempt(due);
    const [request] = sent;
    expect(request!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(previous).verify(request!.body, request!.headers)).toBeTruthy();
    expect(new Webhook(endpoint.secret).verify(request!.body, request!.headers)).toBeTruthy();
  });
});
