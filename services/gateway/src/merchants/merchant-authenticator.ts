/**
 * Resolves an API secret to its merchant. Verified secrets (and unknown ones) are cached for a
 * few seconds to keep the database off the hot path; a `merchant changed` message (sent on
 * rotation) empties the cache at once on every gateway.
 */
import type { MerchantRepository } from './merchant.repository';
import { hashSecret, hashesMatch } from './credentials';
import type { MerchantRecord } from './merchant.schema';

export interface AuthenticatedMerchant {
  id: string;
  apiKeyId: string;
  rateLimit: number | null;
}

interface CacheEntry {
  merchant: AuthenticatedMerchant | null;
  expiresAt: number;
}

const MAX_ENTRIES = 10_000;

export class MerchantAuthenticator {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly merchants: MerchantRepository,
    private readonly ttlMs: number,
  ) {}

  async authenticate(secret: string): Promise<AuthenticatedMerchant | null> {
    const hash = hashSecret(secret);
    const cached = this.cache.get(hash);
    if (cached && cached.expiresAt > Date.now()) return cached.merchant;
    const record = await this.merchants.findBySecretHash(hash);
    const merchant =
      record && hashesMatch(record.api_secret_hash, hash) ? toAuthenticated(record) : null;
    if (this.ttlMs > 0) {
      if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
      this.cache.set(hash, { merchant, expiresAt: Date.now() + this.ttlMs });
    }
    return merchant;
  }

  /** The merchant when this gateway verified `secret` moments ago; no database look-up. */
  cached(secret: string): AuthenticatedMerchant | null {
    const cached = this.cache.get(hashSecret(secret));
    return cached && cached.expiresAt > Date.now() ? cached.merchant : null;
  }

  forgetAll(): void {
    this.cache.clear();
  }
}

export function toAuthenticated(
  record: Pick<MerchantRecord, '_id' | 'api_key_id' | 'rate_limit'>,
): AuthenticatedMerchant {
  return { id: record._id, apiKeyId: record.api_key_id, rateLimit: record.rate_limit };
}
