/** Thin RPC entry points for payouts: the checked request to the use case, its reply back. */
import { DEFAULT_LIMIT, paginate, pageRequest } from '@aff/api';
import {
  callContext,
  currentEventContext,
  idParam,
  internalCallContext,
  ok,
  type RpcHandlers,
} from '@aff/messaging';
import type { GeneratePayouts } from '../domain/generate-payouts';
import type { PayPayout } from '../domain/pay-payout';
import type { PayoutQueries } from '../domain/payout-queries';

export interface PayoutUseCases {
  queries: PayoutQueries;
  pay: PayPayout;
  generate: GeneratePayouts;
}

type PayoutHandlers = Pick<
  RpcHandlers<'payout'>,
  'listPayouts' | 'getPayout' | 'payPayout' | 'generatePayouts' | 'payoutTotals'
>;

export function payoutRpc({ queries, pay, generate }: PayoutUseCases): PayoutHandlers {
  return {
    listPayouts: async (req, rpc) => {
      const { affiliate_id, state, expand } = req.query;
      return ok(
        await queries.list(
          callContext(req, rpc),
          { affiliate_id, states: state ?? [] },
          pageRequest(req.query),
          new Set(expand),
        ),
      );
    },
    /** Internal (the console's payouts page): the typed input, no request envelope. */
    payoutTotals: async ({ merchant_id }, rpc) =>
      queries.totals(internalCallContext(merchant_id, currentEventContext(rpc.requestId))),
    getPayout: async (req, rpc) => ok(await queries.get(callContext(req, rpc), idParam(req))),
    // No request body (spec); whoever's API secret asks becomes `paid_by_id`.
    payPayout: async (req, rpc) =>
      ok(await pay.pay(callContext(req, rpc), idParam(req), req.api_key_id)),
    generatePayouts: async (req, rpc) => {
      const views = await generate.generate(callContext(req, rpc), req.body);
      // Everything on one page, in the envelope every list uses (docs/payouts.md).
      const limit = Math.max(views.length, DEFAULT_LIMIT);
      return ok(paginate(views, views.length, { page: 1, limit, skip: 0 }));
    },
  };
}
