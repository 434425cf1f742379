/**
 * When the due sweep (pending → due) reads the database. Its query (`state: pending, due_at ≤
 * now`) has an index on MongoDB 7 but scans every commission on the local server, so running it
 * every tick made an idle service's cost grow with history. It runs at start, when a due time
 * this process wrote has come (every pending commission it writes is noted), when the last run
 * hit its batch limit, and otherwise every `recheckMs`, for commissions other replicas or an
 * earlier run of this one wrote: those become due at most `recheckMs` late.
 */
export class DueSchedule {
  /** The sweep reads the database at the first tick at or after this time. */
  private nextAt = 0;

  constructor(
    private readonly recheckMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A commission this process wrote is pending until `dueAt`. */
  noteDue(dueAt: Date): void {
    this.nextAt = Math.min(this.nextAt, new Date(dueAt).getTime());
  }

  /** A scheduler tick: runs `moveDue` (which moves at most `limit`) when there is reason to. */
  async tick(moveDue: () => Promise<number>, limit: number): Promise<number> {
    const now = this.now();
    if (now < this.nextAt) return 0;
    // Set before running: a due time noted while it runs is kept.
    this.nextAt = now + this.recheckMs;
    const moved = await moveDue();
    if (moved >= limit) this.nextAt = Math.min(this.nextAt, now);
    return moved;
  }
}
