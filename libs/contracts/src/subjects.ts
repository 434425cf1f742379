/**
 * Every NATS subject and stream name the services agree on. Append-only: renaming one breaks
 * running replicas and durable consumers.
 */
export const SERVICES = [
  'affiliate',
  'tracking',
  'commission',
  'payout',
  'webhook',
  'web',
] as const;
export type ServiceName = (typeof SERVICES)[number];

/** Request/reply subject of one operation of one service, e.g. `rpc.affiliate.create`. */
export function rpcSubject(service: ServiceName, operation: string): string {
  return `rpc.${service}.${operation}`;
}

/** Queue group shared by every replica of a service, so a request is answered once. */
export function rpcQueueGroup(service: ServiceName): string {
  return `${service}-rpc`;
}

/** One JetStream stream per owning service; each owns the aggregates listed here. */
export const STREAMS = {
  affiliate: {
    name: 'EVT_AFFILIATE',
    aggregates: ['affiliate', 'affiliate_link', 'affiliate_coupon', 'campaign'],
  },
  tracking: {
    name: 'EVT_TRACKING',
    aggregates: ['referral', 'charge', 'coupon_referral', 'referral_counts'],
  },
  commission: { name: 'EVT_COMMISSION', aggregates: ['sale', 'commission'] },
  payout: { name: 'EVT_PAYOUT', aggregates: ['payout', 'payout_export'] },
  /** Endpoint health (`webhook_endpoint.disabled`), from the webhook service's outbox. */
  webhook: { name: 'EVT_WEBHOOK', aggregates: ['webhook_endpoint'] },
  /** Verified payment-processor events, written by the gateway's public hook. */
  gateway: { name: 'EVT_PROCESSOR', aggregates: ['processor'] },
} as const satisfies Record<string, { name: string; aggregates: readonly string[] }>;
export type StreamOwner = keyof typeof STREAMS;

export function streamSubjects(aggregates: readonly string[]): string[] {
  return aggregates.map((aggregate) => `evt.${aggregate}.>`);
}

/** Gateways drop cached credentials of a merchant when this is published (core NATS, fire-and-forget). */
export const MERCHANT_CHANGED_SUBJECT = 'ctl.merchant.changed';

/**
 * Tracking's queue of accepted visits (durable-first intake): a new visit is stored here and
 * answered, and tracking's intake consumer writes the referrals in batches. One subject per
 * referral (`<subjectPrefix>.<referral id>`), so a lead, a repeat visit or a processor event
 * naming a referral not written yet can find it. Only the tracking service reads or writes it.
 */
export const VISIT_INTAKE = {
  stream: 'TRACKING_INTAKE',
  subjectPrefix: 'intake.tracking.visit',
  durable: 'tracking-intake',
} as const;
