import {
  FIRST_RETRY_WAIT_MS,
  RETRY_OFFSETS_MS,
  RETRY_WINDOW_MS,
  nextRetryAt,
  outcomeOf,
} from '../src/domain/retry-schedule';

const S = 1000;
const first = new Date('2025-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(first.getTime() + ms);

describe('the retry schedule', () => {
  it('retries 13 times: waits doubling from 30 s, the last retry exactly 3 days after the first attempt', () => {
    expect(RETRY_OFFSETS_MS.map((ms) => ms / S)).toEqual([
      30, 90, 210, 450, 930, 1890, 3810, 7650, 15330, 30690, 61410, 122850, 259200,
    ]);
    expect(RETRY_OFFSETS_MS.at(-1)).toBe(RETRY_WINDOW_MS);
    expect(RETRY_OFFSETS_MS[0]).toBe(FIRST_RETRY_WAIT_MS);
  });

  it('makes every wait longer than the one before (exponential backoff)', () => {
    const waits = RETRY_OFFSETS_MS.map((offset, i) => offset - (RETRY_OFFSETS_MS[i - 1] ?? 0));
    for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThan(waits[i - 1]!);
  });

  it('picks the first slot after now, skipping slots missed while down or busy', () => {
    expect(nextRetryAt(first, first, 1)).toEqual(at(30 * S));
    expect(nextRetryAt(first, at(30 * S), 1)).toEqual(at(90 * S));
    expect(nextRetryAt(first, at(1000 * S), 1)).toEqual(at(1890 * S));
  });

  it('gives up after the slot at the end of the window', () => {
    expect(nextRetryAt(first, at(RETRY_WINDOW_MS - 1), 1)).toEqual(at(RETRY_WINDOW_MS));
    expect(nextRetryAt(first, at(RETRY_WINDOW_MS), 1)).toBeNull();
  });

  it('compresses the whole schedule with the time scale', () => {
    expect(nextRetryAt(first, first, 0.001)).toEqual(at(30));
    expect(nextRetryAt(first, at(259_199), 0.001)).toEqual(at(259_200));
    expect(nextRetryAt(first, at(259_200), 0.001)).toBeNull();
  });
});

describe('the outcome of an attempt', () => {
  it('is delivered only on status 200', () => {
    expect(outcomeOf(200, first, at(5), 1)).toEqual({
      state: 'delivered',
      next_attempt_at: null,
      first_attempt_at: first,
    });
    for (const status of [201, 204, 301, 404, 500, null]) {
      expect(outcomeOf(status, first, at(5), 1)).toMatchObject({
        state: 'pending',
        next_attempt_at: at(30 * S),
      });
    }
  });

  it('is failed once no slot is left', () => {
    expect(outcomeOf(500, first, at(RETRY_WINDOW_MS + 10), 1)).toEqual({
      state: 'failed',
      next_attempt_at: null,
      first_attempt_at: first,
    });
  });

  it('honours Retry-After by taking the first slot after it', () => {
    expect(outcomeOf(503, first, at(5), 1, 100 * S)).toMatchObject({
      next_attempt_at: at(210 * S),
    });
  });
});
