/**
 * The console's calls to the owning services, scoped to the session's merchant (never a
 * merchant the browser sent). One way for every page: `consoleCalls(rpc, res)` gives
 * - `call(operation, {params, query, body})` for a REST operation of the contract map, in the
 *   same envelope the gateway sends, so an action has the REST API's effects, events and
 *   webhooks. To use another REST operation, add its name to CONSOLE_OPERATIONS (the
 *   reply is typed from the map's response schema);
 * - `internal(operation, input)` for an internal operation (auth `internal`, e.g.
 *   findAffiliates), with `merchant_id` filled in from the session. An internal operation the
 *   console needs is added to the contract map in its owning service (docs/contract.md).
 */
import type { Response } from 'express';
import type { z } from 'zod';
import { AppError, isAppError } from '@aff/api';
import {
  OPERATIONS,
  type InternalInput,
  type InternalOperation,
  type InternalReplyBody,
  type OperationMap,
  type RpcReply,
} from '@aff/contracts';
import { callInternal, type RpcClient } from '@aff/messaging';
import { session } from './console-http';

/** The contract map's REST operations the console calls (each answered by its owning service). */
export const CONSOLE_OPERATIONS = [
  'getAffiliate',
  'updateAffiliate',
  'issueMagicLink',
  'listCommissions',
  'listCampaigns',
  'getCampaign',
  'createCampaign',
  'updateCampaign',
  'listReferrals',
  'getReferral',
  'reviewReferral',
  'getCommission',
  'deleteCommission',
  'listPayouts',
  'generatePayouts',
  'payPayout',
  'createPayoutExport',
  'listPayoutExports',
  'getPayoutExport',
  'getPayoutExportFile',
  'completePayoutExport',
  'cancelPayoutExport',
  'listWebhookEndpoints',
  'getWebhookEndpoint',
  'updateWebhookEndpoint',
  'listWebhookDeliveries',
  'redeliverWebhookDelivery',
] as const;
export type ConsoleOperation = (typeof CONSOLE_OPERATIONS)[number];

/** What a REST operation answers with 200, from its response schema in the contract map. */
export type ReplyOf<Op extends ConsoleOperation> = OperationMap[Op]['response'] extends {
  body: infer B extends z.ZodType;
}
  ? z.output<B>
  : unknown;

export interface Call {
  params?: Record<string, string>;
  /** The query as the REST API receives it: strings (the map's query schema parses them). */
  query?: Record<string, string | string[]>;
  body?: Record<string, unknown>;
  /** Related objects, as the gateway gathers `expand` (e.g. `['affiliate']`). */
  expand?: string[];
}

/** A refusal (4xx) the page shows as it is; the rest is an outage. */
export class ConsoleReplyError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The service's reasons (`details`), e.g. why a review or a void was refused. */
    readonly details: string[] = [],
  ) {
    super(message);
  }
}

export async function callAsMerchant<Op extends ConsoleOperation>(
  rpc: RpcClient,
  merchantId: string,
  operation: Op,
  call: Call,
  requestId: string,
  /**
   * Who acts, where an operation records it (`paid_by_id` of a payout paid or an export
   * completed): the console user's id, as the REST API records its API secret's id.
   */
  actorId: string | null = null,
  /**
   * The single-use form key's seed (form-keys.ts), when an action form sent this call: as the
   * gateway's `Idempotency-Key` seed, a re-run derives the same ids for what it creates.
   */
  idempotencySeed?: string,
): Promise<ReplyOf<Op>> {
  const reply: RpcReply = await rpc.call(
    OPERATIONS[operation].owner,
    operation,
    {
      merchant_id: merchantId,
      params: call.params ?? {},
      query: call.query ?? {},
      body: call.body ?? {},
      expand: call.expand ?? [],
      api_key_id: actorId,
      ...(idempotencySeed ? { idempotency_seed: idempotencySeed } : {}),
    },
    requestId,
  );
  if (reply.status === 200) return reply.body as ReplyOf<Op>;
  const body = (reply.body ?? {}) as { error?: string; details?: unknown };
  if (reply.status >= 500) throw new AppError('unavailable', body.error ?? 'Service unavailable.');
  const details = Array.isArray(body.details)
    ? body.details.filter((d): d is string => typeof d === 'string')
    : [];
  throw new ConsoleReplyError(reply.status, body.error ?? 'Request failed.', details);
}

type WithoutMerchant<O extends InternalOperation> = Omit<InternalInput<O>, 'merchant_id'>;

/** The calls of one console request, as its session's merchant. */
export function consoleCalls(rpc: RpcClient, res: Response) {
  const merchantId = session(res).merchantId;
  const requestId = res.locals.requestId as string;
  const formSeed = res.locals.formSeed as string | undefined;
  return {
    merchantId,
    // One seed per operation and record, so each item of a bulk action has its own.
    call: <Op extends ConsoleOperation>(operation: Op, call: Call = {}) =>
      callAsMerchant(
        rpc,
        merchantId,
        operation,
        call,
        requestId,
        session(res).userId,
        formSeed && `${formSeed}:${operation}:${JSON.stringify(call.params ?? {})}`,
      ),
    /** An internal operation; a 4xx comes back as ConsoleReplyError, like `call`'s. */
    internal: async <O extends InternalOperation>(
      operation: O,
      input: WithoutMerchant<O>,
    ): Promise<InternalReplyBody<O>> => {
      try {
        return await callInternal(
          rpc,
          operation,
          { ...input, merchant_id: merchantId } as InternalInput<O>,
          requestId,
        );
      } catch (error) {
        if (isAppError(error) && error.status < 500)
          throw new ConsoleReplyError(error.status, error.message);
        throw error;
      }
    },
  };
}

export type ConsoleCalls = ReturnType<typeof consoleCalls>;
