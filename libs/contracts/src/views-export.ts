/**
 * Payout exports (DESIGN.md section 3): the mass-payment files a merchant pays affiliates with.
 * An export holds its payouts (`processing`) until it is completed (paid) or canceled (`due`).
 */
import { z } from 'zod';

const timestamp = z.string().describe('ISO 8601 timestamp');
const uuid = z.string().describe('UUID');

export const PAYOUT_EXPORT_FORMATS = ['paypal_payouts', 'wise_batch', 'csv'] as const;
export type PayoutExportFormat = (typeof PAYOUT_EXPORT_FORMATS)[number];

export const PAYOUT_EXPORT_STATES = ['open', 'completed', 'canceled'] as const;
export type PayoutExportState = (typeof PAYOUT_EXPORT_STATES)[number];

/** Why a payout asked for (or due in the currency) is not in the export (docs/payouts.md). */
export const PAYOUT_EXPORT_SKIP_REASONS = [
  'wallet_missing',
  'wallet_unconfirmed',
  'not_due',
  'currency_mismatch',
  'in_other_export',
  'not_found',
] as const;
export type PayoutExportSkipReason = (typeof PAYOUT_EXPORT_SKIP_REASONS)[number];

export const payoutExportFileSchema = z.object({
  part: z.number().int().describe('1, 2, ...: a format allows so many rows per file'),
  rows: z.number().int(),
  url: z.string().describe('Where the file downloads (text/csv)'),
});

export const payoutExportViewSchema = z.object({
  id: uuid,
  format: z.enum(PAYOUT_EXPORT_FORMATS),
  currency: z.string(),
  state: z.enum(PAYOUT_EXPORT_STATES),
  payout_ids: z.array(uuid),
  skipped: z.array(z.object({ payout_id: z.string(), reason: z.enum(PAYOUT_EXPORT_SKIP_REASONS) })),
  count: z.number().int(),
  total_cents: z.number().int(),
  files: z.array(payoutExportFileSchema),
  created_at: timestamp,
});
export type PayoutExportView = z.infer<typeof payoutExportViewSchema>;

/**
 * What the payout service answers over NATS for a file: the gateway sends `content` as the
 * operation's content type, as an attachment named `filename`.
 */
export const fileReplySchema = z.object({ filename: z.string(), content: z.string() });
export type FileReply = z.infer<typeof fileReplySchema>;
