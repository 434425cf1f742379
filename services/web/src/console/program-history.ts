/**
 * The overview's history: once a day per merchant, the program's totals (tracking's
 * getReferralTotals and commission's getCommissionTotals) as they were at the first reading of that
 * UTC day, kept 40 days in web's database (`console_stat_days`). "The last 30 days" is what the
 * totals grew by since the oldest reading of the window; a day's bar is what they grew by until
 * the next reading. Readings are taken when the overview is shown and by web's hourly job for
 * every merchant with console users, so there is one per day without anyone looking.
 * Nothing here counts records: it subtracts counters.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import type { CommissionStats, ReferralTotals } from '@aff/contracts';
import { ScopedRepository } from '@aff/mongo';

export type Totals = ReferralTotals & { commission_stats: CommissionStats };

export interface StatDayRecord {
  /** `<merchant_id>:<YYYY-MM-DD>`: one reading per merchant and day, whoever writes first. */
  _id: string;
  merchant_id: string;
  day: string;
  at: Date;
  totals: Totals;
}

const schema = new Schema<StatDayRecord>(
  {
    _id: String,
    merchant_id: { type: String, required: true },
    day: { type: String, required: true },
    at: { type: Date, required: true },
    totals: { type: Schema.Types.Mixed, required: true },
  },
  { versionKey: false, minimize: false },
);
schema.index({ merchant_id: 1, day: 1 });
schema.index({ at: 1 });

export function statDayModel(connection: Connection): Model<StatDayRecord> {
  return (
    (connection.models.ConsoleStatDay as Model<StatDayRecord> | undefined) ??
    connection.model<StatDayRecord>('ConsoleStatDay', schema, 'console_stat_days')
  );
}

export const KEEP_DAYS = 40;
export const WINDOW_DAYS = 30;
const DAY_MS = 86_400_000;

export const dayOf = (date: Date) => date.toISOString().slice(0, 10);

/** The totals a reading keeps: tracking's referral totals and commission's totals. */
export function totalsOf(
  referrals: ReferralTotals,
  commissions: { commission_stats: CommissionStats },
): Totals {
  const { visitors, leads, conversions } = referrals;
  return { visitors, leads, conversions, commission_stats: commissions.commission_stats };
}

export class ProgramHistory {
  private readonly days: ScopedRepository<StatDayRecord>;

  constructor(
    days: Model<StatDayRecord>,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.days = new ScopedRepository(days);
  }

  /** Today's reading, unless one was taken already today (the first one stays). */
  async record(merchantId: string, totals: Totals): Promise<void> {
    const at = this.now();
    const day = dayOf(at);
    // False when two first readings raced: the other one is the day's reading. The insert takes
    // `merchant_id` from the scoped filter.
    await this.days.upsert(
      merchantId,
      { _id: `${merchantId}:${day}` },
      { $setOnInsert: { day, at, totals } },
    );
  }

  /** Readings of the window (today and the 29 days before), oldest first. */
  async window(merchantId: string): Promise<StatDayRecord[]> {
    // By the readings' `_id`s (one per day of the window): every server answers that from the
    // `_id` index, where `day: {$gte}` scans every merchant's readings on the local server.
    const end = this.now().getTime();
    const ids = Array.from(
      { length: WINDOW_DAYS },
      (_, back) => `${merchantId}:${dayOf(new Date(end - back * DAY_MS))}`,
    );
    const found = await this.days.find(merchantId, { _id: { $in: ids } });
    return found.sort((a, b) => a.day.localeCompare(b.day));
  }
}
