/** Small helpers of the bench: a bounded worker pool and percentiles. */

/** Runs `task(0..count-1)` with at most `concurrency` at once; results in index order. */
export async function inPool<T>(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<T>,
): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const index = next++;
        results[index] = await task(index);
      }
    }),
  );
  return results;
}

export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
