import type { CommissionRecord, PayoutRecord } from '../src/domain/records';
import { toPayoutCommission, toPayoutView } from '../src/domain/views';

const commission: CommissionRecord = {
  _id: 'c1',
  merchant_id: 'm1',
  affiliate_id: 'a1',
  campaign_id: 'k1',
  amount: 1234,
  currency: 'USD',
  state: 'due',
  processor_account_id: 'acct_1',
  due_at: new Date('2024-03-01T00:00:00Z'),
  paid_at: null,
  voided_at: null,
  created_at: new Date('2024-01-01T00:00:00Z'),
  updated_at: new Date('2024-03-01T00:00:00Z'),
  listed: true,
};

const payout: PayoutRecord = {
  _id: 'p1',
  merchant_id: 'm1',
  affiliate_id: 'a1',
  currency: 'USD',
  state: 'due',
  amount: 1234,
  commission_ids: ['c1'],
  commission_count: 1,
  series: 1,
  series_key: 'a1:USD:1',
  fingerprint: 'f',
  paid_at: null,
  paid_by_id: null,
  created_at: new Date('2024-03-02T00:00:00Z'),
  updated_at: new Date('2024-03-02T00:00:00Z'),
};

describe('toPayoutCommission', () => {
  it("shows the spec's eight keys in lists, and state and voided_at when retrieved", () => {
    const summary = toPayoutCommission(commission, payout, 'summary');
    expect(Object.keys(summary)).toEqual([
      'id',
      'currency',
      'processor_account_id',
      'due_at',
      'paid_at',
      'created_at',
      'updated_at',
      'amount',
    ]);
    expect(toPayoutCommission(commission, payout, 'full')).toEqual({
      ...summary,
      state: 'due',
      voided_at: null,
    });
  });

  it('records the commissions as paid from the moment the payout is paid', () => {
    const paidAt = new Date('2024-04-01T12:00:00Z');
    const view = toPayoutCommission(commission, { paid_at: paidAt }, 'full');
    expect(view).toMatchObject({ paid_at: paidAt.toISOString(), state: 'paid' });
  });

  it('leaves a voided commission unpaid', () => {
    const voided = { ...commission, state: 'voided' as const, voided_at: new Date('2024-03-05') };
    const view = toPayoutCommission(voided, { paid_at: new Date() }, 'full');
    expect(view).toMatchObject({ paid_at: null, state: 'voided' });
  });
});

describe('toPayoutView', () => {
  it('has the spec fields in order, expansions only when given', () => {
    expect(Object.keys(toPayoutView(payout))).toEqual([
      'id',
      'currency',
      'paid_at',
      'state',
      'paid_by_id',
      'created_at',
      'updated_at',
      'amount',
    ]);
    expect(toPayoutView(payout, { commissions: [] })).toHaveProperty('commissions', []);
  });
});
