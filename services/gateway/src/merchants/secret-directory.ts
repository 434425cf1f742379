/**
 * Every merchant's API secret hash, in memory: a good secret is recognised without a database
 * look-up and before any failure limit is consulted, so failed logins from an address (a
 * flood, or a shared load balancer) never lock out a merchant whose secret is valid.
 * Kept current by the `merchant changed` message (creation, rotation) and a periodic reload, a
 * safety net for a lost message.
 */
import { toAuthenticated, type AuthenticatedMerchant } from './merchant-authenticator';
import type { MerchantRepository } from './merchant.repository';
import { hashSecret } from './credentials';

export class SecretDirectory {
  private byHash = new Map<string, AuthenticatedMerchant>();
  /** Bumped by every reload: a look-up that raced a rotation does not add a stale secret. */
  private generation = 0;
  private reloading: Promise<void> | undefined;
  private again = false;

  constructor(private readonly merchants: MerchantRepository) {}

  /** The merchant whose current secret this is; a map look-up, no I/O. */
  find(secret: string): AuthenticatedMerchant | null {
    return this.byHash.get(hashSecret(secret)) ?? null;
  }

  get size(): number {
    return this.byHash.size;
  }

  /** Replaces the directory with the merchants as stored now (one query, few fields). */
  reload(): Promise<void> {
    // Calls during a reload coalesce into one more reload after it (it may have read too early).
    if (this.reloading) {
      this.again = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      try {
        do {
          this.again = false;
          this.generation++;
          const next = new Map<string, AuthenticatedMerchant>();
          for (const record of await this.merchants.allCredentials())
            next.set(record.api_secret_hash, toAuthenticated(record));
          this.byHash = next;
        } while (this.again);
      } finally {
        this.reloading = undefined;
      }
    })();
    return this.reloading;
  }

  /** A token for `learn`: the directory's state before a database look-up started. */
  snapshot(): number {
    return this.generation;
  }

  /** Adds a merchant found in the database since the last reload, unless a reload came between. */
  learn(secret: string, merchant: AuthenticatedMerchant, since: number): void {
    if (since === this.generation && !this.reloading) this.byHash.set(hashSecret(secret), merchant);
  }
}
