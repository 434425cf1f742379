/**
 * The referrals' insert batches counted exactly (see referral-tallies.ts): the batch's counts
 * are reserved before its `insertMany`, each new referral carries the reservation's marks in
 * its own insert, and once the batch is written the reservation is settled with what it
 * inserted (a duplicate, say a redelivered visit, adds nothing).
 */
import type { ReferralTallies } from './referral-tallies';
import { countsOfNew } from './link-counts';
import type { ReferralDocument } from './referral.schema';

export function countInserts(tallies: Pick<ReferralTallies, 'reserve'>) {
  return async (docs: ReferralDocument[]) => {
    const reservation = await tallies.reserve(
      docs.map((doc) => ({ referral: doc, delta: countsOfNew(doc) })),
    );
    if (!reservation) return null;
    for (const doc of docs) doc.count_marks = reservation.marks(countsOfNew(doc));
    return async (inserted: ReferralDocument[]) => {
      const ids = new Set(inserted.map((doc) => doc._id));
      await reservation.settle((id) => ids.has(id));
    };
  };
}
