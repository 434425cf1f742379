/**
 * Named response schemas (`#/components/schemas/...`): the records the API answers, so the
 * reference shows an Affiliate once and every answer that holds one points at it.
 */
import { z } from 'zod';
import {
  affiliateViewSchema,
  campaignViewSchema,
  commissionStatsSchema,
  errorBodySchema,
  linkViewSchema,
  paginationSchema,
} from '../views';
import {
  commissionViewSchema,
  couponViewSchema,
  payoutCommissionSchema,
  payoutViewSchema,
  referralCustomerSchema,
  referralLinkSchema,
  referralViewSchema,
  saleViewSchema,
} from '../views-money';
import { payoutExportViewSchema } from '../views-export';
import {
  webhookAttemptViewSchema,
  webhookDeliveryViewSchema,
  webhookEndpointViewSchema,
} from '../views-webhook';
import type { JsonSchema } from './json-schema';

const NAMED: Record<string, z.ZodType> = {
  Error: errorBodySchema,
  Pagination: paginationSchema,
  Affiliate: affiliateViewSchema,
  Campaign: campaignViewSchema,
  Link: linkViewSchema,
  CommissionStats: commissionStatsSchema,
  Referral: referralViewSchema,
  ReferralLink: referralLinkSchema,
  ReferralCustomer: referralCustomerSchema,
  Sale: saleViewSchema,
  Commission: commissionViewSchema,
  Payout: payoutViewSchema,
  PayoutCommission: payoutCommissionSchema,
  PayoutExport: payoutExportViewSchema,
  Coupon: couponViewSchema,
  WebhookEndpoint: webhookEndpointViewSchema,
  WebhookDelivery: webhookDeliveryViewSchema,
  WebhookAttempt: webhookAttemptViewSchema,
};

const ref = (id: string) => `#/components/schemas/${id}`;

/**
 * Converts the named schemas and the given response schemas in one pass, so every occurrence
 * of a named schema becomes a `$ref`. Returns the components and, per key, the response schema.
 */
export function responseSchemas(responses: Record<string, z.ZodType>): {
  components: Record<string, JsonSchema>;
  byKey: Record<string, JsonSchema>;
} {
  const registry = z.registry<{ id: string }>();
  const nameOf = new Map<z.ZodType, string>();
  for (const [id, schema] of Object.entries(NAMED)) {
    registry.add(schema, { id });
    nameOf.set(schema, id);
  }
  const byKey: Record<string, JsonSchema> = {};
  for (const [key, schema] of Object.entries(responses)) {
    const named = nameOf.get(schema);
    if (named) byKey[key] = { $ref: ref(named) };
    else registry.add(schema, { id: `__response_${key}` });
  }
  const converted = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io: 'output',
    uri: ref,
    unrepresentable: 'any',
  }).schemas as Record<string, JsonSchema>;
  const components: Record<string, JsonSchema> = {};
  for (const [id, json] of Object.entries(converted)) {
    const schema = { ...json };
    delete schema.$schema;
    delete schema.$id;
    if (id.startsWith('__response_')) byKey[id.slice('__response_'.length)] = schema;
    else components[id] = schema;
  }
  return { components, byKey };
}
