/**
 * Sign-in requests per address: at most `limit` per fixed window (15 minutes), each request
 * mailing a link, so an address cannot be flooded. Counted in web's database, so every web
 * replica shares one count (in each process's memory, two replicas allowed twice the limit).
 * One `$inc` with upsert per request; the same for known and unknown addresses (the answer, and
 * its time, must not depend on the address). The gateway's per-client-address page limit comes
 * first. A fixed window lets at most twice the limit through across a window's edge.
 */
import { createHash } from 'node:crypto';
import type { Model } from 'mongoose';
import { isDuplicateKeyError } from '@aff/mongo';
import type { ConsoleSignInCountRecord } from './console.schema';

export const SIGN_IN_WINDOW_MS = 15 * 60_000;

export class SignInLimiter {
  constructor(
    private readonly counts: Model<ConsoleSignInCountRecord>,
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async allow(address: string): Promise<boolean> {
    const start = Math.floor(this.now() / this.windowMs) * this.windowMs;
    const _id = createHash('sha256').update(`${address}\n${start}`).digest('hex');
    const bump = () =>
      this.counts
        .findOneAndUpdate(
          { _id },
          { $inc: { count: 1 }, $setOnInsert: { expires_at: new Date(start + this.windowMs) } },
          { upsert: true, new: true, projection: { count: 1 } },
        )
        .lean<ConsoleSignInCountRecord>()
        .exec();
    let counted: ConsoleSignInCountRecord | null;
    try {
      counted = await bump();
    } catch (error) {
      // Two first requests raced to insert the window's document: the loser counts on it.
      if (!isDuplicateKeyError(error)) throw error;
      counted = await bump();
    }
    return (counted?.count ?? 1) <= this.limit;
  }
}
