/**
 * Payout exports (DESIGN.md section 3): a file per currency that a mass-payment service takes,
 * then `complete` (the payouts are paid) or `cancel` (they are due again).
 */
import { z } from 'zod';
import { paginatedSchema } from '../views';
import {
  PAYOUT_EXPORT_FORMATS,
  payoutExportViewSchema,
  type PayoutExportFormat,
} from '../views-export';
import { idParams, pageQuery } from './common';
import { defineOperation } from './operation';

const tag = 'Payout exports';
const MAX_PAYOUT_IDS = 1000;

const format = z.preprocess(
  (v) => (typeof v === 'string' ? v.trim() : v) || undefined,
  z.enum(PAYOUT_EXPORT_FORMATS, {
    error: (issue) =>
      issue.input === undefined
        ? "Format can't be blank"
        : `Format must be one of: ${PAYOUT_EXPORT_FORMATS.join(', ')}`,
  }),
);

const currency = z.preprocess(
  (v) => (typeof v === 'string' ? v.trim().toUpperCase() : v) || undefined,
  z
    .string({
      error: (issue) =>
        issue.input === undefined ? "Currency can't be blank" : 'Currency is invalid',
    })
    .regex(/^[A-Z]{3}$/, { error: 'Currency must be a three-letter ISO code' }),
);

/** `payout_ids[]=a&payout_ids[]=b` (a form list or a JSON array) or `payout_ids=a,b`. */
const payoutIds = z
  .union([z.string(), z.array(z.string())], { error: 'Payout ids must be a list of payout ids' })
  .transform((raw, ctx) => {
    const items = typeof raw === 'string' ? raw.split(',') : raw;
    const ids = [...new Set(items.map((item) => item.trim()).filter(Boolean))];
    if (ids.length === 0) {
      ctx.addIssue({ code: 'custom', message: "Payout ids can't be blank", input: raw });
      return z.NEVER;
    }
    if (ids.length > MAX_PAYOUT_IDS) {
      ctx.addIssue({
        code: 'custom',
        message: `Payout ids is too long (maximum is ${MAX_PAYOUT_IDS} ids)`,
        input: raw,
      });
      return z.NEVER;
    }
    return ids;
  })
  .describe('Only these payouts (each must be due, in `currency`); default: every due payout');

export const createPayoutExportBodySchema = z.object({
  format,
  currency,
  payout_ids: payoutIds.optional(),
});
export type CreatePayoutExportBody = z.output<typeof createPayoutExportBodySchema>;
export type { PayoutExportFormat };

export const createPayoutExport = defineOperation({
  name: 'createPayoutExport',
  owner: 'payout',
  auth: 'apiSecret',
  tag,
  summary: 'Export due payouts of one currency to a mass-payment file',
  description:
    'Moves every due payout of the currency (or the given ones) whose affiliate has a ' +
    'confirmed wallet for the format to `processing`; a payout is in at most one open export. ' +
    'The others are listed in `skipped` with the reason.',
  http: { method: 'post', path: '/v1/payout_exports' },
  invalid: 'Could not create payout export.',
  body: createPayoutExportBodySchema,
  response: { status: 200, description: 'The open export', body: payoutExportViewSchema },
  errors: [400, 422],
});

export const listPayoutExports = defineOperation({
  name: 'listPayoutExports',
  owner: 'payout',
  auth: 'apiSecret',
  tag,
  summary: 'List payout exports',
  http: { method: 'get', path: '/v1/payout_exports' },
  query: z.object({ ...pageQuery }),
  response: {
    status: 200,
    description: 'A page of exports, newest first',
    body: paginatedSchema(payoutExportViewSchema),
  },
  errors: [400],
});

export const getPayoutExport = defineOperation({
  name: 'getPayoutExport',
  owner: 'payout',
  auth: 'apiSecret',
  tag,
  summary: 'Retrieve a payout export',
  http: { method: 'get', path: '/v1/payout_exports/:id' },
  params: idParams,
  response: { status: 200, description: 'The export', body: payoutExportViewSchema },
  errors: [404],
});

export const getPayoutExportFile = defineOperation({
  name: 'getPayoutExportFile',
  owner: 'payout',
  auth: 'apiSecret',
  tag,
  summary: 'Download one file of a payout export',
  description:
    'The same export always gives the same bytes. `Content-Disposition` names the format, ' +
    'the currency and the export.',
  http: { method: 'get', path: '/v1/payout_exports/:id/files/:part' },
  params: idParams.extend({ part: z.string().describe('File number, from 1') }),
  response: {
    status: 200,
    description: 'The file (CSV)',
    contentType: 'text/csv; charset=utf-8',
    file: true,
  },
  errors: [404],
});

export const completePayoutExport = defineOperation({
  name: 'completePayoutExport',
  owner: 'payout',
  auth: 'apiSecret',
  tag,
  summary: 'Complete an export: its payouts are paid',
  description:
    'Pays each payout of the export as `PUT /v1/payouts/:id/pay` would; `paid_by_id` is the ' +
    'API secret that completed it. Only an open export can be completed (422).',
  http: { method: 'post', path: '/v1/payout_exports/:id/complete' },
  params: idParams,
  response: { status: 200, description: 'The completed export', body: payoutExportViewSchema },
  errors: [404, 422],
});

export const cancelPayoutExport = defineOperation({
  name: 'cancelPayoutExport',
  owner: 'payout',
  auth: 'apiSecret',
  tag,
  summary: 'Cancel an export: its payouts are due again',
  description: 'Only an open export can be canceled (422).',
  http: { method: 'post', path: '/v1/payout_exports/:id/cancel' },
  params: idParams,
  response: { status: 200, description: 'The canceled export', body: payoutExportViewSchema },
  errors: [404, 422],
});
