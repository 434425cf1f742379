/**
 * The overview's history: once a day per merchant, the program's totals (tracking's
 * getReferralTotals and commission's getCommissionTotals) as they were at the first reading of that
 * UTC day, kept 40 days in web's database (`console_stat_days`). "The last 30 days" is what the
 * totals grew by since the oldest reading of the window; a day's bar is what they grew by until
 * the next reading. Readings are taken when the overview is shown and by web's hourly job for
 * every merchant with console users, so there is one per day without anyone looking.
 * Nothing here counts records: it subtracts counters.
 *
 * Days before the first reading (and days without one) can get a derived reading, once per
 * merchant (./history-backfill.ts): tracking's visitors, leads and conversions at that day's
 * midnight, counted from the referrals' dates. It has those three figures only (`derived`): the
 * money of a past day cannot be recovered (docs/console.md), so the window's money figures start
 * at the first real reading. A marker document (`<merchant_id>:backfill`, read with the window)
 * says the merchant has had its backfill.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import type { CommissionStats, ReferralTotals } from '@aff/contracts';
import { ScopedRepository, insertManyUnordered, isDuplicateKeyError } from '@aff/mongo';

export type Totals = ReferralTotals & { commission_stats: CommissionStats };
/** What a reading holds: a real one has the money too, a derived one the three counts only. */
export type StoredTotals = Totals | ReferralTotals;

export const hasMoney = (totals: StoredTotals): totals is Totals => 'commission_stats' in totals;

export interface StatDayRecord {
  /** `<merchant_id>:<YYYY-MM-DD>`: one reading per merchant and day, whoever writes first. */
  _id: string;
  merchant_id: string;
  day: string;
  at: Date;
  totals: StoredTotals;
  /** Set on a reading counted afterwards from tracking's referrals (no money figures). */
  derived?: boolean;
}

/** A derived reading: the day, its midnight and the three counts as of then. */
export interface DerivedReading {
  day: string;
  at: Date;
  totals: ReferralTotals;
}

const schema = new Schema<StatDayRecord>(
  {
    _id: String,
    merchant_id: { type: String, required: true },
    day: { type: String, required: true },
    at: { type: Date, required: true },
    totals: { type: Schema.Types.Mixed, required: true },
    derived: { type: Boolean },
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
    return (await this.readWindow(merchantId)).readings;
  }

  /** The window's readings, and whether the merchant has had its backfill (one read). */
  async readWindow(
    merchantId: string,
  ): Promise<{ readings: StatDayRecord[]; backfilled: boolean }> {
    // By the readings' `_id`s (one per day of the window, and the marker): every server answers
    // that from the `_id` index, where `day: {$gte}` scans every merchant's readings locally.
    const end = this.now().getTime();
    const ids = Array.from(
      { length: WINDOW_DAYS },
      (_, back) => `${merchantId}:${dayOf(new Date(end - back * DAY_MS))}`,
    );
    const marker = markerId(merchantId);
    const found = await this.days.find(merchantId, { _id: { $in: [...ids, marker] } });
    return {
      readings: found.filter((d) => d._id !== marker).sort((a, b) => a.day.localeCompare(b.day)),
      backfilled: found.some((d) => d._id === marker),
    };
  }

  /**
   * Stores derived readings for days that have none (a day's first reading stays: a real one,
   * or another backfill's), then the merchant's marker. One unordered insert: a day that has a
   * reading is a duplicate `_id`, ignored. The marker goes last, so a backfill cut short is
   * done again, and writes the same readings.
   */
  async fill(merchantId: string, derived: DerivedReading[]): Promise<void> {
    const at = this.now();
    const docs: StatDayRecord[] = [
      ...derived.map((r) => ({
        _id: `${merchantId}:${r.day}`,
        merchant_id: merchantId,
        day: r.day,
        at: r.at,
        totals: r.totals,
        derived: true,
      })),
      // `at` is when the backfill ran: the marker is pruned with the readings (KEEP_DAYS), when
      // the window holds only readings taken since.
      { _id: markerId(merchantId), merchant_id: merchantId, day: 'backfill', at, totals: ZERO },
    ];
    const failed = await insertManyUnordered(this.days.model, docs);
    const error = failed.find((f) => f && !isDuplicateKeyError(f));
    if (error) throw error;
  }
}

const ZERO: ReferralTotals = { visitors: 0, leads: 0, conversions: 0 };
const markerId = (merchantId: string) => `${merchantId}:backfill`;
