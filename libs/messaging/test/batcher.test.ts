import { Batcher } from '../src/batcher';

function deferred() {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

describe('Batcher', () => {
  it('hands items pushed in one turn to one flush and answers each caller', async () => {
    const flushed: number[][] = [];
    const batcher = new Batcher<number, number>({
      flush: async (items) => {
        flushed.push(items);
        return items.map((n) => n * 10);
      },
    });
    const results = await Promise.all([1, 2, 3].map((n) => batcher.push(n)));
    expect(results).toEqual([10, 20, 30]);
    expect(flushed).toEqual([[1, 2, 3]]);
  });

  it('fails only the item whose result is an Error', async () => {
    const batcher = new Batcher<number>({
      flush: async (items) => items.map((n) => (n === 2 ? new Error('duplicate') : undefined)),
    });
    const outcomes = await Promise.allSettled([1, 2, 3].map((n) => batcher.push(n)));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('while the in-flight limit is reached, gathers what arrives into the next flush', async () => {
    const gate = deferred();
    const flushed: number[][] = [];
    const batcher = new Batcher<number>({
      maxInFlight: 1,
      flush: async (items) => {
        flushed.push(items);
        if (flushed.length === 1) await gate.promise;
        return items.map(() => undefined);
      },
    });
    const first = batcher.push(1);
    await new Promise((resolve) => setImmediate(resolve));
    // The first flush is still running: these three wait for it, then leave together.
    const rest = [2, 3, 4].map((n) => batcher.push(n));
    await new Promise((resolve) => setImmediate(resolve));
    expect(flushed).toEqual([[1]]);
    gate.release();
    await Promise.all([first, ...rest]);
    expect(flushed).toEqual([[1], [2, 3, 4]]);
  });
});
