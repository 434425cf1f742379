import {
  PAYABLE_STATES,
  applicableMinimum,
  bundleDue,
  isPayable,
  payoutAmount,
  stateForAmount,
} from '../src/domain/payout-rules';

const commission = (
  id: string,
  affiliate: string,
  currency: string,
  state: 'pending' | 'due' | 'paid' | 'voided' = 'due',
  listed = false,
) => ({ _id: id, affiliate_id: affiliate, currency, state, listed });

describe('bundleDue', () => {
  it('makes one bundle per affiliate and currency, keeping the given order', () => {
    const bundles = bundleDue([
      commission('c1', 'a1', 'USD'),
      commission('c2', 'a2', 'USD'),
      commission('c3', 'a1', 'EUR'),
      commission('c4', 'a1', 'USD'),
    ]);
    expect(bundles).toEqual([
      { affiliate_id: 'a1', currency: 'USD', commission_ids: ['c1', 'c4'] },
      { affiliate_id: 'a2', currency: 'USD', commission_ids: ['c2'] },
      { affiliate_id: 'a1', currency: 'EUR', commission_ids: ['c3'] },
    ]);
  });

  it('leaves out commissions that are not due or already listed by a payout', () => {
    const bundles = bundleDue([
      commission('c1', 'a1', 'USD', 'pending'),
      commission('c2', 'a1', 'USD', 'paid'),
      commission('c3', 'a1', 'USD', 'voided'),
      commission('c4', 'a1', 'USD', 'due', true),
    ]);
    expect(bundles).toEqual([]);
  });
});

describe('payout amount and state', () => {
  it('sums the commissions still unpaid: voided ones and ones paid outside the payout do not count', () => {
    expect(
      payoutAmount([
        { amount: 500, state: 'due' },
        { amount: 50, state: 'pending' },
        { amount: 250, state: 'voided' },
        { amount: 100, state: 'paid' },
      ]),
    ).toBe(550);
    expect(payoutAmount([])).toBe(0);
  });

  it('is due at or above the minimum payout and pending below it', () => {
    expect(stateForAmount(4999, 5000)).toBe('pending');
    expect(stateForAmount(5000, 5000)).toBe('due');
    expect(stateForAmount(5001, 5000)).toBe('due');
    expect(stateForAmount(1, 0)).toBe('due');
  });

  it('is never due with nothing to pay', () => {
    expect(stateForAmount(0, 0)).toBe('pending');
  });
});

describe('payable states', () => {
  it('lets pending and due payouts be paid, and nothing else', () => {
    expect(PAYABLE_STATES).toEqual(['pending', 'due']);
    expect(isPayable('pending')).toBe(true);
    expect(isPayable('due')).toBe(true);
    expect(isPayable('processing')).toBe(false);
    expect(isPayable('paid')).toBe(false);
  });
});

describe('applicableMinimum', () => {
  const minimums: Record<string, number> = { current: 5000, old: 1000 };
  const lookup = (id: string) => minimums[id];
  const commissions = [
    { campaign_id: 'old', created_at: new Date('2024-01-01') },
    { campaign_id: 'other', created_at: new Date('2024-02-01') },
  ];

  it("uses the affiliate's current campaign", () => {
    expect(applicableMinimum('current', commissions, lookup)).toBe(5000);
  });

  it('falls back to the newest known campaign of its commissions, then to none', () => {
    expect(applicableMinimum('unknown', commissions, lookup)).toBe(1000);
    expect(applicableMinimum(null, [], lookup)).toBe(0);
  });
});
