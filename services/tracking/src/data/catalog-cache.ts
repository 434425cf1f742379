/**
 * The catalog repository with its read models in memory. Reads are answered from memory and
 * fall back to the database (filling memory) on a miss; saves write both. Every replica keeps
 * its memory current from a plain NATS subscription to the catalog subjects (each replica sees
 * every event; the durable consumer that writes the database delivers each event to one replica
 * only), and reloads everything after a reconnect, when events may have been missed.
 */
import type { AffiliateView, CampaignView, CouponView, LinkView } from '@aff/contracts';
import {
  followEventTable,
  ReplayWhileLoading,
  type NatsConnection,
  type Subscription,
} from '@aff/messaging';
import type { Logger } from '@aff/logging';
import { catalogEvents } from './catalog-events';
import { CatalogRepository } from './catalog.repository';
import { CatalogMemory } from './catalog-memory';
import type { CatalogModels, KnownAffiliate, KnownCampaign, KnownLink } from './catalog.schema';

export class CachedCatalogRepository extends CatalogRepository {
  private memory = new CatalogMemory();
  /** Changes applied while a (re)load reads the database are applied again on top of it. */
  private readonly loads = new ReplayWhileLoading();

  constructor(private readonly catalogModels: CatalogModels) {
    super(catalogModels);
  }

  load(): Promise<void> {
    return this.loads.load(async () => {
      const fresh = new CatalogMemory();
      await fresh.load(this.catalogModels);
      this.memory = fresh;
    });
  }

  /**
   * Follows the catalog events on this connection until it closes, applying them to memory only
   * (the durable consumer writes the database).
   */
  follow(nc: NatsConnection, log: Logger): Subscription[] {
    const memory = (apply: () => void) => this.loads.apply(apply);
    return followEventTable(nc, {
      on: catalogEvents<void>({
        saveLink: (merchantId, link) => memory(() => this.memory.applyLink(merchantId, link)),
        saveAffiliate: (merchantId, view) =>
          memory(() => this.memory.applyAffiliate(merchantId, view)),
        saveCampaign: (merchantId, view) =>
          memory(() => this.memory.applyCampaign(merchantId, view)),
        saveCoupon: (merchantId, coupon) =>
          memory(() => this.memory.applyCoupon(merchantId, coupon)),
      }),
      reload: () => this.load(),
      log,
    });
  }

  override async saveLink(merchantId: string, link: LinkView): Promise<void> {
    await super.saveLink(merchantId, link);
    this.loads.apply(() => this.memory.applyLink(merchantId, link));
  }

  override async saveAffiliate(merchantId: string, view: AffiliateView): Promise<void> {
    await super.saveAffiliate(merchantId, view);
    this.loads.apply(() => this.memory.applyAffiliate(merchantId, view));
  }

  override async saveCampaign(merchantId: string, view: CampaignView): Promise<void> {
    await super.saveCampaign(merchantId, view);
    this.loads.apply(() => this.memory.applyCampaign(merchantId, view));
  }

  override async saveCoupon(merchantId: string, coupon: CouponView): Promise<void> {
    await super.saveCoupon(merchantId, coupon);
    this.loads.apply(() => this.memory.applyCoupon(merchantId, coupon));
  }

  override async linkByToken(merchantId: string, token: string): Promise<KnownLink | null> {
    const known = this.memory.linkByToken(merchantId, token);
    if (known) return known;
    const stored = await super.linkByToken(merchantId, token);
    // The database copy may still hold a token this replica already knows was changed.
    if (!stored || this.memory.isStale(stored)) return null;
    this.memory.putLink(stored);
    return stored;
  }

  override async linksByIds(merchantId: string, ids: string[]): Promise<KnownLink[]> {
    const known = ids.map((id) => this.memory.link(merchantId, id));
    const missing = ids.filter((_, i) => !known[i]);
    const stored = missing.length > 0 ? await super.linksByIds(merchantId, missing) : [];
    for (const link of stored) this.memory.putLink(link);
    return [...known.filter((l): l is KnownLink => Boolean(l)), ...stored];
  }

  override async affiliate(merchantId: string, id: string): Promise<KnownAffiliate | null> {
    const known = this.memory.affiliate(merchantId, id);
    if (known) return known;
    const stored = await super.affiliate(merchantId, id);
    if (stored) this.memory.putAffiliate(stored);
    return stored;
  }

  override async affiliatesByIds(merchantId: string, ids: string[]): Promise<KnownAffiliate[]> {
    const known = ids.map((id) => this.memory.affiliate(merchantId, id));
    const missing = ids.filter((_, i) => !known[i]);
    const stored = missing.length > 0 ? await super.affiliatesByIds(merchantId, missing) : [];
    for (const affiliate of stored) this.memory.putAffiliate(affiliate);
    return [...known.filter((a): a is KnownAffiliate => Boolean(a)), ...stored];
  }

  override async campaign(merchantId: string, id: string): Promise<KnownCampaign | null> {
    const known = this.memory.campaign(merchantId, id);
    if (known) return known;
    const stored = await super.campaign(merchantId, id);
    if (stored) this.memory.putCampaign(stored);
    return stored;
  }

  override async couponByCode(merchantId: string, code: string) {
    const known = this.memory.couponByCode(merchantId, code);
    if (known) return known;
    const stored = await super.couponByCode(merchantId, code);
    if (stored) this.memory.putCoupon(stored);
    return stored;
  }
}
