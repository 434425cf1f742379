/**
 * Gathers items that arrive close together and hands them to one `flush` call, so concurrent
 * handlers share one bulk write instead of a round trip each. Each caller awaits its own item's
 * result, so a handler acknowledges its message only after the write that holds it.
 */
export interface BatcherOptions<T, R> {
  /**
   * Writes a whole batch; returns one result per item, in order. An `Error` in place of a result
   * fails that item alone (e.g. the one duplicate key of an unordered insert).
   */
  flush: (items: T[]) => Promise<(R | Error)[]>;
  /** Largest batch; a full batch is flushed at once. */
  maxItems?: number;
  /**
   * How long the first item of a batch waits for company. 0 (the default): until the event
   * loop's next turn, so everything pushed by handlers running in this turn shares the batch
   * and a lone item waits no timer.
   */
  maxWaitMs?: number;
  /**
   * Flushes running at once (default 2). While they run, new items wait and leave together in
   * the next one (group commit): the slower the database, the larger the batches, instead of
   * many small writes queueing up behind each other.
   */
  maxInFlight?: number;
}

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

export class Batcher<T, R = void> {
  private queue: Waiting<T, R>[] = [];
  private scheduled = false;
  private readonly maxItems: number;
  private readonly maxWaitMs: number;
  private readonly maxInFlight: number;
  private inFlight = 0;

  constructor(private readonly opts: BatcherOptions<T, R>) {
    this.maxItems = opts.maxItems ?? 200;
    this.maxWaitMs = opts.maxWaitMs ?? 0;
    this.maxInFlight = opts.maxInFlight ?? 2;
  }

  push(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.queue.length >= this.maxItems) this.flushNow();
      else this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const flush = () => {
      this.scheduled = false;
      this.flushNow();
    };
    if (this.maxWaitMs > 0) setTimeout(flush, this.maxWaitMs);
    else setImmediate(flush);
  }

  private flushNow(): void {
    // At the limit, the flush that finishes next takes what is waiting.
    if (this.inFlight >= this.maxInFlight) return;
    const batch = this.queue.splice(0, this.maxItems);
    if (this.queue.length > 0) this.schedule();
    if (batch.length === 0) return;
    this.inFlight += 1;
    const done = () => {
      this.inFlight -= 1;
      if (this.queue.length > 0) this.schedule();
    };
    this.opts
      .flush(batch.map((w) => w.item))
      .finally(done)
      .then(
        (results) =>
          batch.forEach((w, i) => {
            const result = results[i];
            if (result instanceof Error) w.reject(result);
            else w.resolve(result as R);
          }),
        (error: unknown) => batch.forEach((w) => w.reject(error)),
      );
  }
}
