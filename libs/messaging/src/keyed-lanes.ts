/**
 * Bounded concurrency with order by key: tasks that share a key run one after another, in the
 * order they were added; tasks with different keys run at once, at most `limit` in all.
 */
export class KeyedLanes {
  private readonly tails = new Map<string, Promise<void>>();
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private idle: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  /** Resolves once the task has a slot (so callers can stop pulling meanwhile); the task runs later. */
  async add(key: string, task: () => Promise<void>): Promise<void> {
    if (this.running >= this.limit) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.running += 1;
    const previous = this.tails.get(key) ?? Promise.resolve();
    const run = previous.then(task).catch(() => undefined);
    const tail = run.finally(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
      this.running -= 1;
      this.waiting.shift()?.();
      if (this.running === 0) for (const resolve of this.idle.splice(0)) resolve();
    });
    this.tails.set(key, tail);
  }

  get size(): number {
    return this.running;
  }

  /** Resolves when no task is running or queued. */
  drained(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }
}
