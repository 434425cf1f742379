/**
 * Bulk actions without services: which ids a form chose, that one item's refusal never stops the
 * others, that an outage stops the run and reports what was not done, and the answer's status.
 */
import { AppError } from '@aff/api';
import {
  MAX_BULK_ITEMS,
  bulkReport,
  bulkStatus,
  chosenIds,
  runEach,
} from '../src/console/bulk-actions';
import { ConsoleReplyError } from '../src/console/console-data';

describe('chosenIds', () => {
  it('takes one or repeated ids, de-duplicated in order, and sets aside what is not an id', () => {
    expect(chosenIds({ ids: 'a-1' })).toEqual({ ids: ['a-1'], malformed: [] });
    expect(chosenIds({ ids: ['b', 'a', 'b', '', '<x>', 'a'] })).toEqual({
      ids: ['b', 'a'],
      malformed: ['<x>'],
    });
    expect(chosenIds({ ids: { nested: 'x' } })).toEqual({ ids: [], malformed: [] });
    expect(chosenIds(undefined)).toEqual({ ids: [], malformed: [] });
  });

  it('takes at most a page of the largest size', () => {
    const many = Array.from({ length: MAX_BULK_ITEMS + 5 }, (_, i) => `id${i}`);
    expect(chosenIds({ ids: many }).ids).toHaveLength(MAX_BULK_ITEMS);
  });
});

describe('runEach', () => {
  it('does every item it can and names each refusal with its reason', async () => {
    const seen: string[] = [];
    const outcome = await runEach(
      { ids: ['a', 'b', 'c'], malformed: ['<x>'] },
      async (id) => {
        seen.push(id);
        if (id === 'b') throw new ConsoleReplyError(422, 'Could not review.', ['Already done']);
      },
      async (id) => `Name of ${id}`,
    );
    expect(seen.sort()).toEqual(['a', 'b', 'c']);
    expect(outcome.done.sort()).toEqual(['a', 'c']);
    expect(outcome.failed).toEqual([
      { id: '<x>', label: '<x>', reason: 'Not an id.' },
      { id: 'b', label: 'Name of b', reason: 'Could not review. Already done' },
    ]);
    expect(outcome.outage).toBe(false);
    expect(bulkStatus(outcome)).toBe(200);
  });

  it('stops at an outage: the rest are reported as not done, never tried', async () => {
    const seen: string[] = [];
    const outcome = await runEach(
      { ids: ['a', 'b', 'c', 'd'], malformed: [] },
      async (id) => {
        seen.push(id);
        throw new AppError('unavailable', 'down');
      },
      async (id) => id,
      1,
    );
    expect(seen).toEqual(['a']);
    expect(outcome.done).toEqual([]);
    expect(outcome.failed.map((f) => f.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(outcome.failed[0]!.reason).toContain('did not answer');
    expect(bulkStatus(outcome)).toBe(503);
  });

  it('answers 422 when every item was refused, and keeps a name that fails to load as the id', async () => {
    const outcome = await runEach(
      { ids: ['a'], malformed: [] },
      () => Promise.reject(new ConsoleReplyError(404, 'Not found')),
      () => Promise.reject(new Error('no name')),
    );
    expect(outcome.failed).toEqual([{ id: 'a', label: 'a', reason: 'Not found' }]);
    expect(bulkStatus(outcome)).toBe(422);
  });
});

it('the report says what was done and names each failure, escaped', () => {
  const out = bulkReport(
    {
      done: ['a', 'b'],
      failed: [{ id: 'c', label: 'Ann <b>', reason: 'Paid.' }],
      outage: false,
    },
    (n) => `Voided ${n}.`,
  ).value;
  expect(out).toContain('role="status"');
  expect(out).toContain('Voided 2.');
  expect(out).toContain('1 item was not changed');
  expect(out).toMatch(
    /<li data-id="c">\s*<strong>Ann &lt;b&gt;<\/strong> \(c\):\s*Paid\.\s*<\/li>/,
  );
});
