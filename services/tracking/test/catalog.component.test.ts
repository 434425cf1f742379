/**
 * The tracking catalog over a real MongoDB-protocol server: a link token whose link is known but
 * whose affiliate is not yet (its events came link first) is resolved by asking the owner, as an
 * unknown token is, instead of being answered "not found". (Found by the chaos test: visits got
 * a 404 for a link created a moment earlier, while the catalog consumer caught up after a NATS
 * restart.) The affiliate service's side is played by a directory that answers from a map.
 */
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import type { AffiliateView, LinkView } from '@aff/contracts';
import { connectMongo } from '@aff/mongo';
import { CachedCatalogRepository } from '../src/data/catalog-cache';
import { catalogModels } from '../src/data/catalog.schema';
import { Catalog } from '../src/domain/catalog';
import type { LinkDirectory } from '../src/domain/ports';
import { affiliateView, campaignView, linkView } from '../../../test/support/view-fixtures';

let mongo: Connection;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `tracking_catalog_${Date.now()}`);
});

afterAll(async () => {
  await mongo.dropDatabase().catch(() => undefined);
  await mongo.close();
});

/** The affiliate service's answers, and how often it was asked. */
function directory(owned: Map<string, { link: LinkView; affiliate: AffiliateView }>) {
  const asked: string[] = [];
  const dir: LinkDirectory = {
    async resolveToken(_merchantId, token) {
      asked.push(token);
      return owned.get(token) ?? null;
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
