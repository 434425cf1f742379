import { mergeIncrements } from '../src/bulk-updates';

describe('mergeIncrements', () => {
  it('sums pure $inc updates of one document into one update', () => {
    const a = { _id: 'aff_1', merchant_id: 'm' };
    const b = { _id: 'aff_2', merchant_id: 'm' };
    const merged = mergeIncrements([
      { filter: a, update: { $inc: { visitors: 1, leads: 0 } } },
      { filter: b, update: { $inc: { visitors: 1 } } },
      { filter: a, update: { $inc: { visitors: 1, leads: 1 } } },
    ]);
    expect(merged).toEqual([
      { filter: a, update: { $inc: { visitors: 2, leads: 1 } } },
      { filter: b, update: { $inc: { visitors: 1 } } },
    ]);
  });

  it('keeps other updates in place and never moves an $inc ahead of them', () => {
    const a = { _id: 'aff_1', merchant_id: 'm' };
    const merged = mergeIncrements([
      { filter: a, update: { $inc: { visitors: 1 } } },
      { filter: a, update: { $set: { visitors: 0 } } },
      { filter: a, update: { $inc: { visitors: 1 } } },
      { filter: a, update: { $inc: { visitors: 1 } } },
    ]);
    expect(merged).toEqual([
      { filter: a, update: { $inc: { visitors: 1 } } },
      { filter: a, update: { $set: { visitors: 0 } } },
      { filter: a, update: { $inc: { visitors: 2 } } },
    ]);
  });
});
