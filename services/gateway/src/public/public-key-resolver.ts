/** Public key (safe in a web page) → merchant id, cached briefly like API secrets. */
import type { MerchantRecord } from '../merchants/merchant.schema';
import type { MerchantRepository } from '../merchants/merchant.repository';

export class PublicKeyResolver {
  private readonly cache = new Map<
    string,
    { merchant: MerchantRecord | null; expiresAt: number }
  >();

  constructor(
    private readonly merchants: MerchantRepository,
    private readonly ttlMs: number,
  ) {}

  async resolve(publicKey: string): Promise<MerchantRecord | null> {
    if (!/^pk_[A-Za-z0-9_-]{1,100}$/.test(publicKey)) return null;
    const cached = this.cache.get(publicKey);
    if (cached && cached.expiresAt > Date.now()) return cached.merchant;
    const merchant = await this.merchants.findByPublicKey(publicKey);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(publicKey, { merchant, expiresAt: Date.now() + this.ttlMs });
    return merchant;
  }

  forgetAll(): void {
    this.cache.clear();
  }
}
