/**
 * The contract map ties the gateway to the services: every operation it declares for a
 * service has a handler in that service's table, every route the gateway proxies comes from
 * it, and the OpenAPI document lists every HTTP operation of it.
 */
import {
  OPERATIONS,
  SERVICES,
  buildOpenApiDocument,
  defineOperation,
  isInternalOperation,
  openApiPath,
  operationList,
  operationSubject,
  type ServiceName,
} from '@aff/contracts';
import { checkHandlers } from '@aff/messaging';
import { affiliateRpcTable } from '../../services/affiliate/src/rpc/rpc-table';
import { commissionRpcTable } from '../../services/commission/src/rpc/rpc-table';
import { payoutRpcTable } from '../../services/payout/src/rpc/rpc-table';
import { trackingRpcTable } from '../../services/tracking/src/rpc/rpc-table';
import { webhookRpcTable } from '../../services/webhook/src/rpc/rpc-table';
import { webRpcTable } from '../../services/web/src/rpc/rpc-table';
import { apiRoutes, type Route } from '../../services/gateway/src/http/routes';

// Handler factories only close over their use cases; building a table calls none of them. The
// stand-in answers any property with itself, so factories that destructure their use cases work.
const none: never = new Proxy({}, { get: (_target, _key, self: unknown) => self }) as never;
// Each service's complete table, built by the same function its definition hands to the kernel.
const tables: Record<ServiceName, Record<string, unknown>> = {
  affiliate: affiliateRpcTable(none),
  tracking: trackingRpcTable(none),
  commission: commissionRpcTable(none),
  payout: payoutRpcTable(none),
  webhook: webhookRpcTable(none),
  web: webRpcTable(none, none),
};

it.each(SERVICES)(
  'the %s service has a handler for each of its operations, and no other',
  (service) => {
    expect(() => checkHandlers(service, tables[service])).not.toThrow();
  },
);

it('a service whose table lacks an operation of the map is refused at start', () => {
  const incomplete = { ...tables.commission };
  delete incomplete.getCommission;
  expect(() => checkHandlers('commission', incomplete)).toThrow(
    'RPC handlers of commission do not match the contract map: missing getCommission.',
  );
});

it('every service-owned operation derives its subject rpc.<owner>.<key>, where its handler is', () => {
  const owned = Object.entries(OPERATIONS).filter(
    (entry): entry is [string, (typeof entry)[1] & { owner: ServiceName }] =>
      entry[1].owner !== 'gateway',
  );
  expect(owned.length).toBeGreaterThan(SERVICES.length);
  for (const [key, operation] of owned) {
    expect(operationSubject(operation)).toBe(`rpc.${operation.owner}.${key}`);
    expect(typeof tables[operation.owner][key]).toBe('function');
  }
});

it('the gateway proxies exactly the API-secret operations of the map, each method once', () => {
  const routes = apiRoutes();
  const expected = operationList().flatMap((operation) =>
    operation.auth === 'apiSecret' && operation.owner !== 'gateway' && operation.http
      ? [operation.http.method, ...(operation.http.aliases ?? [])].map(
          (method) => `${method} ${operation.http!.path} -> ${operation.owner}.${operation.name}`,
        )
      : [],
  );
  const actual = routes.map((r) => `${r.method} ${r.path} -> ${r.service}.${r.operation}`);
  expect([...actual].sort()).toEqual([...expected].sort());
  expect(new Set(actual.map((r) => r.split(' -> ')[0])).size).toBe(actual.length);
});

/** Whether `literal` is `param`'s path with literal segments where `param` has parameters. */
function literalOf(literal: string, param: string): boolean {
  const a = literal.split('/');
  const b = param.split('/');
  if (a.length !== b.length || literal === param) return false;
  return a.every(
    (segment, i) => segment === b[i] || (b[i]!.startsWith(':') && !segment.startsWith(':')),
  );
}

/** Every pair of routes where a literal segment stands against a parameter, as index pairs. */
function literalParamPairs(routes: Route[]): { literal: string; param: string; before: boolean }[] {
  return routes.flatMap((literal, i) =>
    routes.flatMap((param, j) =>
      literalOf(literal.path, param.path)
        ? [{ literal: literal.path, param: param.path, before: i < j }]
        : [],
    ),
  );
}

it('the gateway matches literal segments first: /v1/payouts/generate comes before /v1/payouts/:id', () => {
  const pairs = literalParamPairs(apiRoutes());
  expect(pairs).toContainEqual({
    literal: '/v1/payouts/generate',
    param: '/v1/payouts/:id',
    before: true,
  });
  expect(pairs.filter((pair) => !pair.before)).toEqual([]);
});

it('the gateway puts a literal route first even when the map declares the parameter first', () => {
  const route = (name: string, path: string) =>
    defineOperation({
      name,
      owner: 'payout',
      auth: 'apiSecret',
      summary: name,
      http: { method: 'post', path },
      response: { status: 200, description: name },
      errors: [],
    });
  const routes = apiRoutes([
    route('updateThing', '/v1/things/:id'),
    route('archiveThing', '/v1/things/:id/archive'),
    route('bulkThings', '/v1/things/bulk'),
    route('archiveAll', '/v1/things/all/archive'),
  ]);
  expect(literalParamPairs(routes)).toEqual([
    { literal: '/v1/things/all/archive', param: '/v1/things/:id/archive', before: true },
    { literal: '/v1/things/bulk', param: '/v1/things/:id', before: true },
  ]);
});

it('the OpenAPI document lists every HTTP operation of the map with its responses', () => {
  const document = buildOpenApiDocument() as { paths: Record<string, Record<string, any>> };
  for (const operation of operationList()) {
    if (!operation.http) continue;
    const entry = document.paths[openApiPath(operation.http.path)]?.[operation.http.method];
    expect(entry?.operationId).toBe(operation.name);
    expect(entry.responses[String(operation.response.status)]).toBeDefined();
    for (const status of operation.errors) expect(entry.responses[String(status)]).toBeDefined();
  }
});

it('the OpenAPI document offers Idempotency-Key on the API writes, and only there', () => {
  const document = buildOpenApiDocument() as { paths: Record<string, Record<string, any>> };
  const takesKey = (path: string, method: string) =>
    (document.paths[path]![method].parameters ?? []).some(
      (p: { name: string; in: string }) => p.name === 'Idempotency-Key' && p.in === 'header',
    );
  expect(takesKey('/v1/affiliates', 'post')).toBe(true);
  expect(takesKey('/v1/affiliates/{id}', 'patch')).toBe(true);
  expect(document.paths['/v1/affiliates']!.post.responses['422']).toBeDefined();
  expect(takesKey('/v1/affiliates', 'get')).toBe(false);
  expect(takesKey('/t/v1/visits', 'post')).toBe(false);
});

it('internal operations take a typed input, have no HTTP shape, and stay out of the document', () => {
  const internal = operationList().filter(isInternalOperation);
  expect(internal.map((operation) => operation.name).sort()).toEqual([
    'confirmEmail',
    'confirmWallet',
    'findAffiliates',
    'findCommissions',
    'getAffiliateCommissionStats',
    'getCommissionTotals',
    'getProgramStats',
    'getReferralHistory',
    'getReferralTotals',
    'inviteConsoleUser',
    'payoutTotals',
    'redeemMagicLink',
    'renderPage',
    'resolveCouponCode',
    'resolveLinkToken',
  ]);
  const document = JSON.stringify(buildOpenApiDocument());
  for (const operation of internal) {
    expect(operation.input.safeParse({}).success).toBe(false);
    expect([operation.http, operation.params, operation.query, operation.body]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(document).not.toContain(`"${operation.name}"`);
  }
  expect(OPERATIONS.resolveLinkToken.input.parse({ merchant_id: 'm', token: 't' })).toEqual({
    merchant_id: 'm',
    token: 't',
  });
});
