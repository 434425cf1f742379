/**
 * Sign-in requests per address in a window, in this process's memory: each request mails a
 * link, so an address cannot be flooded. The gateway's per-client-address page limit comes
 * first. Several web replicas each count on their own (docs/console.md).
 */
export class SignInLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  allow(key: string): boolean {
    const now = this.now();
    const recent = (this.hits.get(key) ?? []).filter((at) => at > now - this.windowMs);
    if (recent.length >= this.limit) {
      this.hits.set(key, recent);
      return false;
    }
    recent.push(now);
    this.hits.set(key, recent);
    // Bounded memory: forget the oldest keys beyond 10,000 addresses.
    if (this.hits.size > 10_000) this.hits.delete(this.hits.keys().next().value!);
    return true;
  }
}
