/**
 * The contract map ties the gateway to the services: every operation it declares for a
 * service has a handler in that service's table, every route the gateway proxies comes from
 * it, and the OpenAPI document lists every HTTP operation of it.
 */
import {
  OPERATIONS,
  SERVICES,
  buildOpenApiDocument,
  isInternalOperation,
  openApiPath,
  operationList,
} from '@aff/contracts';
import { checkHandlers } from '@aff/messaging';
import { affiliateRpc } from '../../services/affiliate/src/rpc/affiliate.rpc';
import { campaignRpc } from '../../services/affiliate/src/rpc/campaign.rpc';
import { couponRpc, magicLinkRpc } from '../../services/affiliate/src/rpc/coupon.rpc';
import { emailRpc } from '../../services/affiliate/src/rpc/email.rpc';
import { linkRpc } from '../../services/affiliate/src/rpc/link.rpc';
import { commissionRpc } from '../../services/commission/src/rpc/commission.rpc';
import { payoutExportRpc } from '../../services/payout/src/rpc/payout-export.rpc';
import { payoutRpc } from '../../services/payout/src/rpc/payout.rpc';
import { trackingRpc } from '../../services/tracking/src/rpc/tracking.rpc';
import { deliveryRpc } from '../../services/webhook/src/rpc/delivery.rpc';
import { endpointRpc } from '../../services/webhook/src/rpc/endpoint.rpc';
import { apiRoutes } from '../../services/gateway/src/http/routes';

// Handler factories only close over their use cases; building a table calls none of them.
const none = {} as never;
const tables: Record<(typeof SERVICES)[number], Record<string, unknown>> = {
  affiliate: {
    ...affiliateRpc(none),
    ...campaignRpc(none),
    ...linkRpc(none),
    ...couponRpc(none),
    ...magicLinkRpc(none),
    ...emailRpc(none, none),
  },
  tracking: trackingRpc(none),
  commission: commissionRpc(none, none),
  payout: { ...payoutRpc(none), ...payoutExportRpc(none) },
  webhook: { ...endpointRpc(none), ...deliveryRpc(none) },
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

it('operation names are unique, and every service-owned operation derives its subject', () => {
  const names = operationList().map((operation) => operation.name);
  expect(new Set(names).size).toBe(names.length);
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
  // A literal segment is matched before a parameter in the same place.
  const paths = routes.map((r) => `${r.method} ${r.path}`);
  expect(paths.indexOf('post /v1/payouts/generate')).toBeGreaterThanOrEqual(0);
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
    'redeemMagicLink',
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
