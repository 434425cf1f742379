/**
 * The tracking catalog over a real MongoDB-protocol server: a link token whose link is known but
 * whose affiliate is not yet (its events came link first) is resolved by asking the owner, as an
 * unknown token is, instead of being answered "not found". (Found by the chaos test: visits got
 * a 404 for a link created a moment earlier, while the catalog consumer caught up after a NATS
 * restart.) Coupon codes likewise. The affiliate service's side is played by a directory that
 * answers from maps.
 */
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import type { AffiliateView, CouponView, LinkView } from '@aff/contracts';
import { connectMongo } from '@aff/mongo';
import { CachedCatalogRepository } from '../src/data/catalog-cache';
import { catalogModels } from '../src/data/catalog.schema';
import { Catalog } from '../src/domain/catalog';
import type { AffiliateDirectory } from '../src/domain/ports';
import {
  affiliateView,
  campaignView,
  couponView,
  linkView,
} from '../../../test/support/view-fixtures';

let mongo: Connection;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `tracking_catalog_${Date.now()}`);
  // Indexes built before the first write, as the service kernel does at start: on the local
  // server an insert racing a new collection's index build fails ("Unknown error: null").
  await Promise.all(Object.values(catalogModels(mongo)).map((model) => model.init()));
});

afterAll(async () => {
  await mongo.dropDatabase().catch(() => undefined);
  await mongo.close();
});

/** The affiliate service's answers, and what it was asked. */
function directory(
  links: Map<string, { link: LinkView; affiliate: AffiliateView }>,
  coupons = new Map<string, { coupon: CouponView; affiliate: AffiliateView }>(),
) {
  const asked: string[] = [];
  const dir: AffiliateDirectory = {
    async resolveToken(_merchantId: string, token: string) {
      asked.push(token);
      return links.get(token) ?? null;
    },
    async resolveCouponCode(_merchantId: string, code: string) {
      asked.push(code);
      return coupons.get(code) ?? null;
    },
  };
  return { dir, asked };
}

it('asks the owner for a link whose affiliate it does not know yet, and then knows both', async () => {
  const merchantId = randomUUID();
  const affiliate = affiliateView({ campaign: campaignView() });
  const link = linkView(affiliate.id);
  const { dir, asked } = directory(new Map([[link.token, { link, affiliate }]]));
  const repo = new CachedCatalogRepository(catalogModels(mongo));
  const catalog = new Catalog(repo, dir);
  // The link's event was applied; its affiliate's was not yet.
  await repo.saveLink(merchantId, link);

  const attribution = await catalog.byToken(merchantId, link.token);
  expect(attribution).toMatchObject({
    link: { _id: link.id, token: link.token },
    affiliate: { id: affiliate.id },
  });
  expect(asked).toEqual([link.token]);

  // Known now: no second question.
  expect(await catalog.byToken(merchantId, link.token)).toMatchObject({
    affiliate: { id: affiliate.id },
  });
  expect(asked).toHaveLength(1);
});

it('answers null for a token the owner does not know either', async () => {
  const { dir, asked } = directory(new Map());
  const catalog = new Catalog(new CachedCatalogRepository(catalogModels(mongo)), dir);
  expect(await catalog.byToken(randomUUID(), 'nobody')).toBeNull();
  expect(asked).toEqual(['nobody']);
});

it('asks the owner for a coupon code it has not heard of, and then knows it', async () => {
  const merchantId = randomUUID();
  const affiliate = affiliateView({ campaign: campaignView() });
  const coupon = couponView(affiliate);
  const { dir, asked } = directory(new Map(), new Map([[coupon.token, { coupon, affiliate }]]));
  const catalog = new Catalog(new CachedCatalogRepository(catalogModels(mongo)), dir);

  expect(await catalog.byCouponCode(merchantId, coupon.token)).toMatchObject({
    couponId: coupon.id,
    affiliate: { id: affiliate.id },
  });
  expect(await catalog.byCouponCode(merchantId, coupon.token)).toMatchObject({
    couponId: coupon.id,
  });
  expect(await catalog.byCouponCode(merchantId, 'NOSUCHCODE')).toBeNull();
  expect(asked).toEqual([coupon.token, 'NOSUCHCODE']);
});
