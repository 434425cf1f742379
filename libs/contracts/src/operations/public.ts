/**
 * Routes without the API secret: the tracking intake that merchants' web pages call with the
 * public key, the tracker script, and the payment processor's signed event hook.
 */
import { z } from 'zod';
import { leadBodySchema, visitBodySchema } from '../schemas/tracking';
import { processorEventSchema } from '../views-money';
import { defineOperation } from './operation';

const tag = 'Public tracking';
const key = z.string().describe("The merchant's public key (`pk_...`)");

export const trackerScript = defineOperation({
  name: 'trackerScript',
  owner: 'gateway',
  auth: 'none',
  tag,
  summary: "The tracker script for the merchant's pages",
  http: { method: 'get', path: '/t/v1/tracker.js' },
  response: { status: 200, description: 'JavaScript', contentType: 'application/javascript' },
  errors: [],
});

/**
 * What a public answer may say of a referral and its affiliate: nothing else (no e-mail, wallet,
 * last name, campaign terms or counters), since anyone with the page's public key asks.
 * Strict, so the OpenAPI document says `additionalProperties: false` and a conformance check
 * fails on any extra field.
 */
const publicReferral = z
  .strictObject({ id: z.string(), expires_at: z.string().describe('ISO 8601 timestamp') })
  .describe('The referral to keep in a cookie');
const publicAffiliate = z
  .strictObject({ id: z.string(), first_name: z.string() })
  .describe('Only the id and first name, for "referred by <first name>" on the page');

export const visitAnswerSchema = z.strictObject({
  referral: publicReferral
    .nullable()
    .describe('Null when the affiliate cannot earn (disabled or suspicious)'),
  affiliate: publicAffiliate,
});

export const leadAnswerSchema = z.strictObject({
  referral: publicReferral,
  affiliate: publicAffiliate,
});

export const recordVisit = defineOperation({
  name: 'recordVisit',
  owner: 'tracking',
  auth: 'publicKey',
  tag,
  summary: 'Record a visit through an affiliate link (creates or refreshes a referral)',
  http: { method: 'post', path: '/t/v1/visits' },
  invalid: 'Could not record visit.',
  body: visitBodySchema.extend({ key }),
  response: {
    status: 200,
    description: 'The referral to remember in a cookie',
    body: visitAnswerSchema,
  },
  errors: [400, 404, 422],
});

export const recordLead = defineOperation({
  name: 'recordLead',
  owner: 'tracking',
  auth: 'publicKey',
  tag,
  summary: 'Turn a referral into a lead',
  http: { method: 'post', path: '/t/v1/leads' },
  invalid: 'Could not record lead.',
  body: leadBodySchema.extend({ key }),
  response: {
    status: 200,
    description: 'The referral (now a lead) and its affiliate, as a visit answers them',
    body: leadAnswerSchema,
  },
  errors: [400, 404, 422],
});

export const receiveProcessorEvent = defineOperation({
  name: 'receiveProcessorEvent',
  owner: 'gateway',
  auth: 'signedHook',
  tag: 'Payment processor hook',
  summary: "The payment processor's events (customers, charges, refunds), signed",
  description:
    '`Processor-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` with the ' +
    "merchant's processor signing secret.",
  http: { method: 'post', path: '/hooks/processor/:public_key' },
  params: z.object({ public_key: key }),
  headers: z.object({ 'processor-signature': z.string() }),
  body: processorEventSchema,
  response: { status: 200, description: 'Accepted', body: z.object({ received: z.literal(true) }) },
  errors: [400, 404],
});
