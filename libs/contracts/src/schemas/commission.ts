/** Request bodies of the commission service's REST operations. */
import { z } from 'zod';

const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/** The instant an ISO 8601 date or date-time stands for; null when it is not a real one. */
export function parseIsoTimestamp(value: string): Date | null {
  const match = ISO_8601.exec(value);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  // Date.parse accepts 2026-02-31 (it rolls over); a calendar date must exist as written.
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return null;
  const ms = Date.parse(value.replace(' ', 'T'));
  return Number.isFinite(ms) ? new Date(ms) : null;
}

/** Absent means "leave as it is"; present must be a real ISO 8601 timestamp (blank too is an error). */
export function timestampIfPresent(label: string) {
  return z.preprocess(
    (v) => (typeof v === 'string' ? v.trim() : v === null ? '' : v),
    z
      .string({ error: `${label} is not a valid ISO 8601 timestamp` })
      .min(1, { error: `${label} can't be blank`, abort: true })
      .transform((value, ctx) => {
        const date = parseIsoTimestamp(value);
        if (date) return date;
        ctx.addIssue({ code: 'custom', message: `${label} is not a valid ISO 8601 timestamp` });
        return z.NEVER;
      })
      .optional(),
  );
}

/** `PUT /v1/commissions/:id`: `due_at` reschedules an unpaid commission, `paid_at` pays it. */
export const updateCommissionBodySchema = z.object({
  due_at: timestampIfPresent('Due at'),
  paid_at: timestampIfPresent('Paid at'),
});
export type UpdateCommissionBody = z.infer<typeof updateCommissionBodySchema>;
