/**
 * The message of tracking's visit queue (VISIT_INTAKE): an accepted visit's referral, written to
 * the database by tracking's intake consumer. Not an event (no one else reads it, no webhook),
 * but declared here with its schema like one, so the consumer gets a checked record and never
 * casts. Dates travel as ISO strings and come back as `Date`s.
 */
import { z } from 'zod';
import { REVIEW_STATES, fraudSignalSchema } from './fraud';
import { CONVERSION_STATES, referralCustomerSchema } from './views-money';

export const VISIT_ACCEPTED = 'visit.accepted';

/** A timestamp as JSON carries a `Date` (its ISO string), read back as a `Date`. */
const wireDate = z.iso.datetime().transform((value) => new Date(value));

export const acceptedVisitRecordSchema = z.object({
  _id: z.string(),
  merchant_id: z.string(),
  link_id: z.string().nullable(),
  affiliate_id: z.string(),
  campaign_id: z.string(),
  coupon_id: z.string().nullable(),
  visits: z.number().int(),
  email: z.string().nullable(),
  customer: referralCustomerSchema.nullable(),
  processor_customer_id: z.string().nullable(),
  customer_key: z.string(),
  processor_account_id: z.string().nullable(),
  conversion_state: z.enum(CONVERSION_STATES),
  became_lead_at: wireDate.nullable(),
  became_conversion_at: wireDate.nullable(),
  expires_at: wireDate,
  deactivated_at: wireDate.nullable(),
  landing_url: z.string().nullable(),
  referrer: z.string().nullable(),
  fraud_signals: z.array(fraudSignalSchema).optional(),
  flagged: z.boolean().optional(),
  review_state: z.enum(REVIEW_STATES).nullable().optional(),
  reviewed_at: wireDate.nullable().optional(),
  review_note: z.string().nullable().optional(),
  address_hash: z.string().nullable().optional(),
  /** Never set on a new visit's referral (tracking's record lists charges it applied). */
  applied_events: z.array(z.string()).optional(),
  created_at: wireDate,
  updated_at: wireDate,
});
/** The record as the consumer receives it (dates as `Date`s). */
export type AcceptedVisitRecord = z.output<typeof acceptedVisitRecordSchema>;
