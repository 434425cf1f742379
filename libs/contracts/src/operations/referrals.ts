/** Referrals: unique visits through affiliate links, and how far they converted. */
import { z } from 'zod';
import { paginatedSchema } from '../views';
import { CONVERSION_STATES, referralViewSchema } from '../views-money';
import {
  expandQuery,
  filter,
  idParams,
  multiValueQuery,
  pageQuery,
  timestampFilter,
} from './common';
import { defineOperation } from './operation';

const tag = 'Referrals';

export const listReferrals = defineOperation({
  name: 'listReferrals',
  owner: 'tracking',
  auth: 'apiSecret',
  tag,
  summary: 'List referrals',
  http: { method: 'get', path: '/v1/referrals' },
  query: z.object({
    affiliate_id: filter('Only referrals of this affiliate'),
    ...multiValueQuery('conversion_state', CONVERSION_STATES),
    email: filter('Only referrals with this e-mail address'),
    processor_customer_id: filter('Only referrals with this customer id'),
    updated_since: timestampFilter('Only referrals updated after this time (ISO 8601)'),
    updated_until: timestampFilter('Only referrals updated before this time (ISO 8601)'),
    ...pageQuery,
    ...expandQuery(['affiliate']),
  }),
  response: {
    status: 200,
    description: 'A page of referrals',
    body: paginatedSchema(referralViewSchema),
  },
  errors: [400],
});

export const getReferral = defineOperation({
  name: 'getReferral',
  owner: 'tracking',
  auth: 'apiSecret',
  tag,
  summary: 'Retrieve a referral',
  http: { method: 'get', path: '/v1/referrals/:id' },
  params: idParams,
  response: { status: 200, description: 'The referral', body: referralViewSchema },
  errors: [404],
});
