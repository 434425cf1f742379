/**
 * The newest version of each catalog record this process has written, so a repeat of a version
 * already stored skips its round trip, and a repeat arriving while that version is being
 * written waits for that write instead of making its own (the catalog consumer runs an
 * affiliate's event and its link's event side by side, and both carry the link). Bounded: past
 * `limit` records it starts over, which only costs the writes it would have saved.
 */
const DEFAULT_LIMIT = 100_000;

export type CatalogKind = 'link' | 'affiliate' | 'campaign';

export class WrittenVersions {
  private readonly versions = new Map<string, string>();
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(private readonly limit = DEFAULT_LIMIT) {}

  /**
   * Runs `store` for this version unless it is written already or being written; `store`
   * answers whether the version is now stored (false: a newer one was there, or another
   * replica's insert won, so nothing is known about this one).
   */
  write(
    kind: CatalogKind,
    merchantId: string,
    id: string,
    version: string,
    store: () => Promise<boolean>,
  ): Promise<void> {
    if (this.has(kind, merchantId, id, version)) return Promise.resolve();
    const key = `${keyOf(kind, merchantId, id)}\u0000${version}`;
    const running = this.inFlight.get(key);
    if (running) return running;
    const writing = store()
      .then((stored) => {
        if (stored) this.add(kind, merchantId, id, version);
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, writing);
    return writing;
  }

  /** Whether `version` (an ISO `updated_at`) is at or below a version written here. */
  private has(kind: CatalogKind, merchantId: string, id: string, version: string): boolean {
    const written = this.versions.get(keyOf(kind, merchantId, id));
    return written !== undefined && version <= written;
  }

  private add(kind: CatalogKind, merchantId: string, id: string, version: string): void {
    const key = keyOf(kind, merchantId, id);
    const written = this.versions.get(key);
    if (written !== undefined && written >= version) return;
    if (this.versions.size >= this.limit) this.versions.clear();
    this.versions.set(key, version);
  }

  /** The stored copy was removed: the next version must be written, whatever it is. */
  forget(kind: CatalogKind, merchantId: string, id: string): void {
    this.versions.delete(keyOf(kind, merchantId, id));
  }
}

function keyOf(kind: CatalogKind, merchantId: string, id: string): string {
  return `${kind}\u0000${merchantId}\u0000${id}`;
}
