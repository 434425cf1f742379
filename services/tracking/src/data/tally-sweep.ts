/**
 * The referral counts' sweep (see referral-tallies.ts): settles reservations whose writer died
 * (older than `STALE_MS`) from the marks the referral writes carry, and publishes again the
 * counts that changed lately, so a count settled by a process that died before its publish
 * still reaches the affiliate service. The first run after a start looks back a day.
 */
import { STALE_MS, sumOf, settleOp, type ReferralTallies } from './referral-tallies';
import { TALLY_TARGETS, type CountMarks, type TallyDoc } from './referral-tally.schema';

export const SWEEP_EVERY_MS = 30_000;
/** Counts settled within this window are published again by each sweep. */
const REPUBLISH_MS = 3 * SWEEP_EVERY_MS;
const REPUBLISH_AT_START_MS = 86_400_000;

/** The `count_marks` of some referrals of one merchant, by referral id. */
export type MarksOf = (merchantId: string, ids: string[]) => Promise<Map<string, CountMarks>>;

export class TallySweep {
  private started = false;

  constructor(
    private readonly tallies: ReferralTallies,
    private readonly marksOf: MarksOf,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The number of stale reservations settled. */
  async run(): Promise<number> {
    const now = this.now().getTime();
    const settled = await this.settleStale(new Date(now - STALE_MS));
    const back = this.started ? REPUBLISH_MS : REPUBLISH_AT_START_MS;
    await this.tallies.publishSettledSince(new Date(now - back));
    this.started = true;
    return settled;
  }

  private async settleStale(olderThan: Date): Promise<number> {
    let settled = 0;
    for (const target of TALLY_TARGETS) {
      const model = this.tallies.models[target];
      const docs = await model
        .find({ 'pending.at': { $lt: olderThan } })
        .limit(200)
        .lean<TallyDoc[]>()
        .exec();
      for (const doc of docs) {
        for (const entry of doc.pending ?? []) {
          if (new Date(entry.at) >= olderThan) continue;
          const marks = await this.marksOf(
            doc.merchant_id,
            entry.refs.map((ref) => ref.r),
          );
          const delta = sumOf(entry.refs, (ref) => marks.get(ref.r)?.[ref.step] === entry.id);
          const key = { merchantId: doc.merchant_id, id: doc._id };
          await model.bulkWrite([settleOp(key, [entry.id], delta, this.now())]);
          settled++;
        }
      }
    }
    return settled;
  }
}
