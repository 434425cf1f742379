/**
 * The console's calls to the owning services: the same operations and envelope the gateway
 * uses for a REST call, scoped to the session's merchant (never a merchant the browser sent),
 * so an action has the REST API's effects, events and webhooks.
 */
import { AppError } from '@aff/api';
import { OPERATIONS, type RpcReply } from '@aff/contracts';
import type { RpcClient } from '@aff/messaging';

/** The contract map's operations the console calls (each answered by its owning service). */
export type ConsoleOperation = 'updateAffiliate';

export interface Call {
  params?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: Record<string, unknown>;
}

/** A refusal (4xx) the page shows as it is; the rest is an outage. */
export class ConsoleReplyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function callAsMerchant<T>(
  rpc: RpcClient,
  merchantId: string,
  operation: ConsoleOperation,
  call: Call,
  requestId: string,
): Promise<T> {
  const reply: RpcReply = await rpc.call(
    OPERATIONS[operation].owner,
    operation,
    {
      merchant_id: merchantId,
      params: call.params ?? {},
      query: call.query ?? {},
      body: call.body ?? {},
      expand: [],
      api_key_id: null,
    },
    requestId,
  );
  if (reply.status === 200) return reply.body as T;
  const body = (reply.body ?? {}) as { error?: string };
  if (reply.status >= 500) throw new AppError('unavailable', body.error ?? 'Service unavailable.');
  throw new ConsoleReplyError(reply.status, body.error ?? 'Request failed.');
}
