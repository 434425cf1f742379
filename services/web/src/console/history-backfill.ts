/**
 * Once per merchant, the overview's readings for the days of its window that have none (before
 * its first reading, or a day web was down): tracking's visitors, leads and conversions at each
 * day's midnight, counted from the referrals (`getReferralHistory`, one aggregation), stored as
 * readings of those three figures only (./program-history.ts, `fill`). The money of those days
 * stays blank: it cannot be recovered (docs/console.md, "The last 30 days").
 *
 * A failure never fails the page: the overview renders from the readings it has, and the
 * backfill is tried again on a later view. After a timeout (a merchant whose referrals the
 * database could not count within the list-read limit) this process waits PAUSE_AFTER_TIMEOUT_MS
 * before trying that merchant again, so its views do not each wait for the limit.
 */
import { isAppError } from '@aff/api';
import { OPERATIONS, type ReferralHistory } from '@aff/contracts';
import type { Logger } from '@aff/logging';
import type { ConsoleCalls } from './console-data';
import { WINDOW_DAYS, type DerivedReading, type ProgramHistory } from './program-history';

export const PAUSE_AFTER_TIMEOUT_MS = 600_000;

/**
 * The readings to store: one per day before `today`, from the last midnight with no visitor
 * yet (the base of the first day's bar) on. Nothing for a program whose first referral is
 * from today, and no leading zeros: the chart starts the day the program got its first visitor.
 */
export function derivedReadings(
  midnights: ReferralHistory['midnights'],
  today: string,
): DerivedReading[] {
  const first = midnights.findIndex((m) => m.visitors > 0);
  if (first === -1) return [];
  return midnights
    .slice(Math.max(0, first - 1))
    .map(({ at, visitors, leads, conversions }) => ({
      day: at.slice(0, 10),
      at: new Date(at),
      totals: { visitors, leads, conversions },
    }))
    .filter((reading) => reading.day < today);
}

export class HistoryBackfill {
  /** Merchants whose last try timed out, and until when (epoch ms) they are not tried again. */
  private readonly paused = new Map<string, number>();

  constructor(
    private readonly history: ProgramHistory,
    private readonly log: Logger,
  ) {}

  /** True when it stored readings (the window is to be read again). Never throws. */
  async run(calls: ConsoleCalls, today: string): Promise<boolean> {
    const { merchantId } = calls;
    const pausedUntil = this.paused.get(merchantId);
    if (pausedUntil !== undefined) {
      if (pausedUntil > Date.now()) return false;
      this.paused.delete(merchantId);
    }
    try {
      const { midnights } = await calls.internal(OPERATIONS.getReferralHistory, {
        days: WINDOW_DAYS,
      });
      const readings = derivedReadings(midnights, today);
      await this.history.fill(merchantId, readings);
      return readings.length > 0;
    } catch (error) {
      if (isAppError(error) && error.code === 'timeout')
        this.paused.set(merchantId, Date.now() + PAUSE_AFTER_TIMEOUT_MS);
      this.log.warn(
        { err: (error as Error).message, merchantId },
        'overview history backfill failed: tried again on a later view',
      );
      return false;
    }
  }
}
