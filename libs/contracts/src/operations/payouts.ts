/** Payouts: due commissions of one affiliate and currency, bundled to be paid. */
import { z } from 'zod';
import { optionalCurrency, optionalText } from '../schemas/fields';
import { paginatedSchema } from '../views';
import { PAYOUT_STATES, payoutViewSchema } from '../views-money';
import { expandQuery, filter, idParams, multiValueQuery, pageQuery } from './common';
import { defineOperation } from './operation';

const tag = 'Payouts';

export const listPayouts = defineOperation({
  name: 'listPayouts',
  owner: 'payout',
  auth: 'apiSecret',
  tag,
  summary: 'List payouts',
  http: { method: 'get', path: '/v1/payouts' },
  query: z.object({
    affiliate_id: filter('Only payouts of this affiliate'),
    ...multiValueQuery('state', PAYOUT_STATES),
    ...pageQuery,
    ...expandQuery(['affiliate', 'commissions']),
  }),
  response: {
    status: 200,
    description: 'A page of payouts',
    body: paginatedSchema(payoutViewSchema),
  },
  errors: [400],
});

export const generatePayoutsBodySchema = z.object({
  affiliate_id: optionalText('Affiliate'),
  currency: optionalCurrency('Currency'),
});
export type GeneratePayoutsBody = z.output<typeof generatePayoutsBodySchema>;

export const generatePayouts = defineOperation({
  name: 'generatePayouts',
  owner: 'payout',
  auth: 'apiSecret',
  tag,
  summary: 'Bundle due commissions into payouts now',
  description: 'Answers every payout created or grown, on one page of the usual envelope.',
  http: { method: 'post', path: '/v1/payouts/generate' },
  invalid: 'Could not generate payouts.',
  body: generatePayoutsBodySchema,
  response: {
    status: 200,
    description: 'The payouts created or grown',
    body: paginatedSchema(payoutViewSchema),
  },
  errors: [400, 422],
});

export const getPayout = defineOperation({
  name: 'getPayout',
  owner: 'payout',
  auth: 'apiSecret',
  tag,
  summary: 'Retrieve a payout (with affiliate and commissions)',
  http: { method: 'get', path: '/v1/payouts/:id' },
  params: idParams,
  response: { status: 200, description: 'The payout', body: payoutViewSchema },
  errors: [404],
});

export const payPayout = defineOperation({
  name: 'payPayout',
  owner: 'payout',
  auth: 'apiSecret',
  tag,
  summary: 'Mark a payout as paid',
  description: 'No request body. The answer usually shows `state: processing`, which is normal.',
  http: { method: 'put', path: '/v1/payouts/:id/pay' },
  params: idParams,
  response: { status: 200, description: 'The updated payout', body: payoutViewSchema },
  errors: [404, 422],
});

export const payoutTotalsSchema = z.object({
  data: z.array(
    z.object({
      currency: z.string(),
      state: z.enum(PAYOUT_STATES),
      count: z.number().int(),
      amount: z.number().int().describe('Sum of the payouts, in cents'),
    }),
  ),
});
export type PayoutTotals = z.infer<typeof payoutTotalsSchema>;

/**
 * Internal (the console's payouts page): the merchant's unpaid payouts summed per currency and
 * state, from one grouped query, so the page does not page through every payout to add them up.
 */
export const payoutTotals = defineOperation({
  name: 'payoutTotals',
  owner: 'payout',
  auth: 'internal',
  summary: 'Unpaid payouts (pending, due, processing) per currency and state',
  input: z.object({ merchant_id: z.string().min(1) }),
  response: {
    status: 200,
    description: 'Count and sum per currency and state',
    body: payoutTotalsSchema,
  },
  errors: [],
});
