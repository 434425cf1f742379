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
    return readThroughMany(
      ids.map((id) => this.memory.link(merchantId, id)),
      ids,
      (missing) => super.linksByIds(merchantId, missing),
      (link) => this.memory.putLink(link),
    );
  }

  override async affiliate(merchantId: string, id: string): Promise<KnownAffiliate | null> {
    return readThrough(
      this.memory.affiliate(merchantId, id),
      () => super.affiliate(merchantId, id),
      (affiliate) => this.memory.putAffiliate(affiliate),
    );
  }

  override async affiliatesByIds(merchantId: string, ids: string[]): Promise<KnownAffiliate[]> {
    return readThroughMany(
      ids.map((id) => this.memory.affiliate(merchantId, id)),
      ids,
      (missing) => super.affiliatesByIds(merchantId, missing),
      (affiliate) => this.memory.putAffiliate(affiliate),
    );
  }

  override async campaign(merchantId: string, id: string): Promise<KnownCampaign | null> {
    return readThrough(
      this.memory.campaign(merchantId, id),
      () => super.campaign(merchantId, id),
      (campaign) => this.memory.putCampaign(campaign),
    );
  }

  override async couponByCode(merchantId: string, code: string) {
    return readThrough(
      this.memory.couponByCode(merchantId, code),
      () => super.couponByCode(merchantId, code),
      (coupon) => this.memory.putCoupon(coupon),
    );
  }
}

/** What memory knows, else the stored copy, which memory keeps from then on. */
async function readThrough<T>(
  known: T | undefined,
  stored: () => Promise<T | null>,
  keep: (record: T) => void,
): Promise<T | null> {
  if (known) return known;
  const record = await stored();
  if (record) keep(record);
  return record;
}

/**
 * The records memory knows (`known`, one per id), then those of the ids it does not know from
 * the store, which memory keeps from then on.
 */
async function readThroughMany<T>(
  known: (T | undefined)[],
  ids: string[],
  stored: (missing: string[]) => Promise<T[]>,
  keep: (record: T) => void,
): Promise<T[]> {
  const missing = ids.filter((_, i) => !known[i]);
  const records = missing.length > 0 ? await stored(missing) : [];
  for (const record of records) keep(record);
  return [...known.filter((r): r is T => Boolean(r)), ...records];
}
