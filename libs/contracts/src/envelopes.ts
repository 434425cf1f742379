/** Wire shapes of request/reply calls and domain events. */
import { z } from 'zod';

export const rpcRequestSchema = z.object({
  merchant_id: z.string(),
  params: z.record(z.string(), z.string()).default({}),
  query: z.record(z.string(), z.unknown()).default({}),
  body: z.unknown().optional(),
  expand: z.array(z.string()).default([]),
  /** The API secret that made the call; payouts record it as `paid_by_id`. */
  api_key_id: z.string().nullable().default(null),
  /**
   * Set when the REST call carries an `Idempotency-Key`: a name for this request (merchant, key
   * and request fingerprint, hashed). A create derives its record's id from it, so a re-run of
   * the same request after a crash finds the record it made instead of making a second one
   * (docs/idempotency.md).
   */
  idempotency_seed: z.string().optional(),
  /**
   * On public intake calls: the client's address as HMAC-SHA256 under the merchant's own salt
   * (the gateway keeps the salt; services never see the address). Equal hashes mean the same
   * address for this merchant; nothing more can be learned from it.
   * Tracking's fraud signals compare these hashes (docs/fraud.md).
   */
  client_address_hash: z.string().optional(),
});
export type RpcRequest = z.infer<typeof rpcRequestSchema>;

export interface RpcReply<T = unknown> {
  status: number;
  body: T;
}

export const eventEnvelopeSchema = z.object({
  id: z.string(),
  type: z.string(),
  merchant_id: z.string(),
  occurred_at: z.string(),
  data: z.unknown(),
});
export type EventEnvelope<T = unknown> = Omit<z.infer<typeof eventEnvelopeSchema>, 'data'> & {
  data: T;
};

/** NATS header names that carry request context across services. */
export const HEADERS = {
  requestId: 'x-request-id',
  merchantId: 'x-merchant-id',
  traceparent: 'traceparent',
  tracestate: 'tracestate',
  msgId: 'Nats-Msg-Id',
} as const;
