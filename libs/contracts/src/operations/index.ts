/**
 * The contract map: every operation of the API, declared once. Services' handler tables are
 * typed by it, the gateway's routes and the OpenAPI document are generated from it, and the
 * NATS subject of an operation is derived from its name (`rpc.<service>.<name>`).
 */
import type { ServiceName } from '../subjects';
import { rpcSubject } from '../subjects';
import * as affiliates from './affiliates';
import * as campaigns from './campaigns';
import * as commissions from './commissions';
import * as consoleUsers from './console';
import * as coupons from './coupons';
import * as links from './links';
import * as meta from './meta';
import * as pages from './pages';
import * as payoutExports from './payout-exports';
import * as payouts from './payouts';
import * as publicRoutes from './public';
import * as referrals from './referrals';
import * as webhooks from './webhooks';
import { keyedByName } from './keyed-by-name';
import type { InternalOperation, Operation } from './operation';

export * from './operation';
export { keyedByName, type NamedByKey } from './keyed-by-name';
export { magicLinkSchema, programStatsSchema, type ProgramStats } from './affiliates';
export { leadAnswerSchema, visitAnswerSchema } from './public';
export {
  REFERRAL_HISTORY_MAX_DAYS,
  referralHistorySchema,
  referralTotalsSchema,
  type ReferralHistory,
  type ReferralTotals,
} from './referrals';
export {
  generatePayoutsBodySchema,
  payoutTotalsSchema,
  type GeneratePayoutsBody,
  type PayoutTotals,
} from './payouts';
export { createPayoutExportBodySchema, type CreatePayoutExportBody } from './payout-exports';
export { deletedSchema } from './common';
export {
  PAGE_BODY_LIMIT_BYTES,
  PAGE_PREFIXES,
  PAGE_REQUEST_HEADERS,
  pageReplySchema,
  pageRequestSchema,
  type PageReply,
  type PageRequest,
} from './pages';
export { ALL_EVENTS } from './webhooks';
export { CONSOLE_ROLES } from './console';

/** Picks the operations out of a module (it also exports helper schemas). */
type OperationsOf<M> = {
  [K in keyof M as M[K] extends Operation ? K : never]: M[K];
};

function operationsOf<M extends Record<string, unknown>>(module: M): OperationsOf<M> {
  const picked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(module)) {
    if (isOperation(value)) picked[key] = value;
  }
  return picked as OperationsOf<M>;
}

function isOperation(value: unknown): value is Operation {
  return (
    typeof value === 'object' &&
    value !== null &&
    'name' in value &&
    'owner' in value &&
    'response' in value
  );
}

/**
 * Order here is the order of the gateway's routes and of the reference. Every operation's
 * `name` is its export key, or this does not compile (`keyedByName`).
 */
export const OPERATIONS = keyedByName({
  ...operationsOf(affiliates),
  ...operationsOf(campaigns),
  ...operationsOf(links),
  ...operationsOf(coupons),
  ...operationsOf(referrals),
  ...operationsOf(commissions),
  ...operationsOf(payouts),
  ...operationsOf(payoutExports),
  ...operationsOf(webhooks),
  ...operationsOf(publicRoutes),
  ...operationsOf(meta),
  ...operationsOf(pages),
  ...operationsOf(consoleUsers),
});

export type OperationMap = typeof OPERATIONS;
export type OperationName = keyof OperationMap;

/** The names of the operations a service must answer over NATS. */
export type OperationNameOf<S extends ServiceName> = {
  [K in OperationName]: OperationMap[K]['owner'] extends S ? K : never;
}[OperationName];

/** The operations only services call (no HTTP route; see `InternalOperation`). */
export type InternalOperationName = {
  [K in OperationName]: OperationMap[K] extends InternalOperation ? K : never;
}[OperationName];

export function isInternalOperation(operation: Operation): operation is InternalOperation {
  return operation.auth === 'internal';
}

export const operationList = (): Operation[] => Object.values(OPERATIONS) as Operation[];

export function operationsOfService(service: ServiceName): Operation[] {
  return operationList().filter((operation) => operation.owner === service);
}

/** Request/reply subject of an operation answered by a service. */
export function operationSubject(operation: Operation & { owner: ServiceName }): string {
  return rpcSubject(operation.owner, operation.name);
}

/** Operations the gateway proxies to a service after checking the API secret. */
export function proxiedOperations(): (Operation & {
  owner: ServiceName;
  http: NonNullable<Operation['http']>;
})[] {
  return operationList().filter(
    (
      operation,
    ): operation is Operation & { owner: ServiceName; http: NonNullable<Operation['http']> } =>
      operation.auth === 'apiSecret' &&
      operation.owner !== 'gateway' &&
      operation.http !== undefined,
  );
}
