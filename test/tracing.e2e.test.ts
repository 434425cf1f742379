/**
 * SREs follow one merchant request as one trace: the gateway's span, the RPC into the affiliate
 * service, and the event it publishes and another service consumes, all share one trace id.
 */
import { api } from './support/http';
import { createMerchant } from './support/merchant';
import { tracedSystemPerFile } from './support/traced-system';
import { eventually } from './support/processor';

const traced = tracedSystemPerFile();

it('shows POST /v1/affiliates as one trace across gateway, affiliate and tracking', async () => {
  const merchant = await createMerchant();
  const res = await api(merchant.api_secret, traced.isolated.system.gatewayUrl).post(
    '/v1/affiliates',
    {
      first_name: 'Trace',
      last_name: 'Able',
      email: `trace-${Date.now()}@example.com`,
    },
  );
  expect(res.status).toBe(200);

  const trace = await eventually(async () => {
    const rpc = traced.receiver.spans.find(
      (s) => s.service === 'affiliate' && s.name === 'rpc.affiliate.createAffiliate process',
    );
    if (!rpc) return undefined;
    const spans = traced.receiver.spans.filter((s) => s.traceId === rpc.traceId);
    // The tracking service consumes affiliate.created into its read model in the same trace.
    return spans.some((s) => s.service === 'tracking' && s.name === 'evt.affiliate.created process')
      ? spans
      : undefined;
  }, 30_000);

  const services = new Set(trace.map((s) => s.service));
  expect([...services]).toEqual(expect.arrayContaining(['gateway', 'affiliate', 'tracking']));
  const names = trace.map((s) => `${s.service}: ${s.name}`);
  expect(names).toEqual(
    expect.arrayContaining([
      'gateway: rpc.affiliate.createAffiliate send',
      'affiliate: rpc.affiliate.createAffiliate process',
      'affiliate: evt.affiliate.created publish',
      'tracking: evt.affiliate.created process',
    ]),
  );
  // The RPC's database commands are in it too (MongoDB client spans, kind 3): a command span is
  // skipped only under a parent that is not recorded (libs/telemetry), never in a traced call.
  const dbSpans = trace.filter((s) => s.service === 'affiliate' && s.kind === 3);
  expect(dbSpans.map((s) => s.name)).toEqual(
    expect.arrayContaining([expect.stringMatching(/affiliates/)]),
  );
  // The gateway's HTTP server span is the root the rest hangs from.
  const gatewayServer = trace.find(
    (s) => s.service === 'gateway' && s.kind === 2 && !s.parentSpanId,
  );
  expect(gatewayServer).toBeDefined();
}, 90_000);
