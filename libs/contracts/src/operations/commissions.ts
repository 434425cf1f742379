/** Commissions: what an affiliate earned for a referred customer's payment. */
import { z } from 'zod';
import { updateCommissionBodySchema } from '../schemas/commission';
import { paginatedSchema } from '../views';
import { COMMISSION_STATES, commissionViewSchema } from '../views-money';
import { deletedSchema, expandQuery, filter, idParams, multiValueQuery, pageQuery } from './common';
import { defineOperation } from './operation';

const tag = 'Commissions';

export const listCommissions = defineOperation({
  name: 'listCommissions',
  owner: 'commission',
  auth: 'apiSecret',
  tag,
  summary: 'List commissions',
  http: { method: 'get', path: '/v1/commissions' },
  query: z.object({
    affiliate_id: filter('Only commissions of this affiliate'),
    ...multiValueQuery('state', COMMISSION_STATES),
    ...pageQuery,
    ...expandQuery(['sale', 'campaign']),
  }),
  response: {
    status: 200,
    description: 'A page of commissions',
    body: paginatedSchema(commissionViewSchema),
  },
  errors: [400],
});

export const getCommission = defineOperation({
  name: 'getCommission',
  owner: 'commission',
  auth: 'apiSecret',
  tag,
  summary: 'Retrieve a commission (with campaign and sale)',
  http: { method: 'get', path: '/v1/commissions/:id' },
  params: idParams,
  response: { status: 200, description: 'The commission', body: commissionViewSchema },
  errors: [404],
});

export const updateCommission = defineOperation({
  name: 'updateCommission',
  owner: 'commission',
  auth: 'apiSecret',
  tag,
  summary:
    'Reschedule an unpaid commission (`due_at`) or mark it paid outside a payout (`paid_at`)',
  http: { method: 'put', path: '/v1/commissions/:id', aliases: ['patch'] },
  params: idParams,
  invalid: 'Could not update commission.',
  body: updateCommissionBodySchema,
  response: { status: 200, description: 'The updated commission', body: commissionViewSchema },
  errors: [400, 404, 422],
});

export const deleteCommission = defineOperation({
  name: 'deleteCommission',
  owner: 'commission',
  auth: 'apiSecret',
  tag,
  summary: 'Void an unpaid commission (a paid one answers 422)',
  http: { method: 'delete', path: '/v1/commissions/:id' },
  params: idParams,
  response: { status: 200, description: 'The voided commission', body: deletedSchema },
  errors: [404, 422],
});
