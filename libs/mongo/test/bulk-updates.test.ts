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

  it('merges statistics updates that also set the same constant fields', () => {
    const a = { _id: 'aff_1', merchant_id: 'm' };
    const usd = { 'stats.USD.currency_iso': 'USD' };
    const eur = { 'stats.EUR.currency_iso': 'EUR' };
    const merged = mergeIncrements([
      { filter: a, update: { $inc: { 'stats.USD.cents': 100 }, $set: usd } },
      { filter: a, update: { $inc: { 'stats.USD.cents': 250 }, $set: usd } },
      { filter: a, update: { $inc: { 'stats.EUR.cents': 5 }, $set: eur } },
      { filter: a, update: { $inc: { 'stats.USD.cents': -50 }, $set: usd } },
    ]);
    // A different set starts a new update after the open one: each field ends as in sequence.
    expect(merged).toEqual([
      { filter: a, update: { $inc: { 'stats.USD.cents': 350 }, $set: usd } },
      { filter: a, update: { $inc: { 'stats.EUR.cents': 5 }, $set: eur } },
      { filter: a, update: { $inc: { 'stats.USD.cents': -50 }, $set: usd } },
    ]);
  });

  it('never merges an update that sets a field it also increments, or does more than $inc and $set', () => {
    const a = { _id: 'aff_1', merchant_id: 'm' };
    const clash = { $inc: { n: 1 }, $set: { n: 5 } };
    const unset = { $inc: { n: 1 }, $unset: { m: 1 } };
    const merged = mergeIncrements([
      { filter: a, update: { $inc: { n: 1 } } },
      { filter: a, update: clash },
      { filter: a, update: unset },
      { filter: a, update: { $inc: { n: 1 } } },
    ]);
    expect(merged).toEqual([
      { filter: a, update: { $inc: { n: 1 } } },
      { filter: a, update: clash },
      { filter: a, update: unset },
      { filter: a, update: { $inc: { n: 1 } } },
    ]);
  });
});
