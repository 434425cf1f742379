/** The newest-first index of commissions (see @aff/mongo's NewestIndex), fed by `commission.created`. */
import type { CommissionView } from '@aff/contracts';
import { NewestIndex, type NewestIndexRow } from '@aff/mongo';
import type { Model } from 'mongoose';
import type { CommissionRecord } from './commission.schema';

export function newestCommissions(commissions: Model<CommissionRecord>): NewestIndex {
  return new NewestIndex(commissions as unknown as Model<NewestIndexRow>, {
    createdSubject: 'evt.commission.created',
    fromEvent: (event) => {
      const commission = event.data as CommissionView;
      return { id: commission.id, createdAt: new Date(commission.created_at) };
    },
  });
}
