/**
 * An in-memory read model loads a snapshot from its database while its subscription keeps
 * applying events: the kernel subscribes first, so nothing published during the load is missed.
 * A change applied while a load runs may or may not be in the snapshot the load installs, so it
 * is applied again on top of it. Changes must therefore be idempotent (keep the newest version,
 * or skip what is already held), and must reach the model's current state when they run (read
 * `this.memory` inside the closure, not before it).
 */
export class ReplayWhileLoading {
  /** One list per load in progress (a reconnect may reload while the first load still runs). */
  private readonly loading = new Set<(() => void)[]>();

  /** Applies a change now, and again after each load in progress has installed its snapshot. */
  apply(change: () => void): void {
    change();
    for (const replay of this.loading) replay.push(change);
  }

  /** Runs `install` (read the snapshot, replace the memory), then replays what came meanwhile. */
  async load(install: () => Promise<void>): Promise<void> {
    const replay: (() => void)[] = [];
    this.loading.add(replay);
    try {
      await install();
    } finally {
      this.loading.delete(replay);
    }
    for (const change of replay) change();
  }
}
