/** The newest-first index of referrals (see @aff/mongo's NewestIndex), fed by `referral.created`. */
import type { ReferralView } from '@aff/contracts';
import { NewestIndex, type NewestIndexRow } from '@aff/mongo';
import type { Model } from 'mongoose';
import type { ReferralRecord } from './referral.schema';

export type NewestReferrals = NewestIndex;

export function newestReferrals(referrals: Model<ReferralRecord>): NewestReferrals {
  return new NewestIndex(referrals as unknown as Model<NewestIndexRow>, {
    createdSubject: 'evt.referral.created',
    fromEvent: (event) => {
      const referral = event.data as ReferralView;
      return { id: referral.id, createdAt: new Date(referral.created_at) };
    },
  });
}
