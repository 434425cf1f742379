/**
 * Hourly: today's reading of the program's totals for every merchant with console users, so the
 * overview's history has one reading a day even on days nobody opens it (./program-history.ts).
 * A day's reading is the first one taken, so the hour after midnight (UTC) fixes it.
 */
import { OPERATIONS } from '@aff/contracts';
import { callInternal, type RpcClient } from '@aff/messaging';
import type { Model } from 'mongoose';
import type { ConsoleUserRecord } from './console.schema';
import { totalsOf, type ProgramHistory } from './program-history';

export const READING_EVERY_MS = 3_600_000;

export function statReadingsJob(
  rpc: RpcClient,
  users: Model<ConsoleUserRecord>,
  history: ProgramHistory,
) {
  return {
    everyMs: READING_EVERY_MS,
    failure: 'console stat reading failed',
    run: async () => {
      const merchants = (await users.distinct('merchant_id')) as string[];
      for (const merchantId of merchants) {
        const requestId = `stat-reading-${merchantId}`;
        const input = { merchant_id: merchantId };
        const [referrals, commissions] = await Promise.all([
          callInternal(rpc, OPERATIONS.getReferralTotals, input, requestId),
          callInternal(rpc, OPERATIONS.getCommissionTotals, input, requestId),
        ]);
        await history.record(merchantId, totalsOf(referrals, commissions));
      }
    },
  };
}
