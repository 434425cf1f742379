/**
 * The catalog's stored read models over a real MongoDB-protocol server: the newest version of a
 * record is kept whatever order its events arrive in, two replicas writing at once agree, and a
 * version already written by this process is not written again (every affiliate event repeats
 * its campaign and links; the database round trips of that repetition were most of tracking's
 * work while a backlog of new affiliates drained).
 */
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import type { AffiliateView, CampaignView, LinkView } from '@aff/contracts';
import { connectMongo } from '@aff/mongo';
import { CatalogRepository } from '../src/data/catalog.repository';
import { catalogModels, type CatalogModels } from '../src/data/catalog.schema';
import { affiliateView, campaignView, linkView } from '../../../test/support/view-fixtures';

let mongo: Connection;
let models: CatalogModels;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `tracking_catalog_writes_${Date.now()}`);
  models = catalogModels(mongo);
  await Promise.all(Object.values(models).map((model) => model.init()));
});

afterAll(async () => {
  await mongo.dropDatabase().catch(() => undefined);
  await mongo.close();
});

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();

interface StoredCopy {
  updated_at: string;
  view: { name?: string; first_name?: string };
}

const storedView = async (kind: 'affiliates' | 'campaigns', merchantId: string, id: string) =>
  (await (models[kind] as CatalogModels['campaigns'])
    .findOne({ _id: id, merchant_id: merchantId })
    .lean()
    .exec()) as StoredCopy | null;

function versions(): { campaign: CampaignView[]; affiliate: AffiliateView[] } {
  const campaign = campaignView({ updated_at: at(1) });
  const affiliate = affiliateView({ campaign, updated_at: at(1), first_name: 'v1' });
  return {
    campaign: [campaign, { ...campaign, name: 'v2', updated_at: at(2) }],
    affiliate: [affiliate, { ...affiliate, first_name: 'v2', updated_at: at(2) }],
  };
}

it.each([
  ['in order', [0, 1]],
  ['newest first', [1, 0]],
])('keeps the newest affiliate and campaign when their events arrive %s', async (_, order) => {
  const merchantId = randomUUID();
  const { campaign, affiliate } = versions();
  const repo = new CatalogRepository(models);
  for (const i of order) {
    await repo.saveCampaign(merchantId, campaign[i]!);
    await repo.saveAffiliate(merchantId, affiliate[i]!);
  }
  expect(await storedView('campaigns', merchantId, campaign[0]!.id)).toMatchObject({
    updated_at: at(2),
    view: { name: 'v2' },
  });
  expect(await storedView('affiliates', merchantId, affiliate[0]!.id)).toMatchObject({
    updated_at: at(2),
    view: { first_name: 'v2' },
  });
});

it('keeps the newest version when another replica wrote a newer one in between', async () => {
  const merchantId = randomUUID();
  const { affiliate } = versions();
  const [one, other] = [new CatalogRepository(models), new CatalogRepository(models)];
  await one.saveAffiliate(merchantId, affiliate[0]!);
  await other.saveAffiliate(merchantId, affiliate[1]!);
  // A redelivery of the old version on the first replica changes nothing.
  await one.saveAffiliate(merchantId, affiliate[0]!);
  expect(await storedView('affiliates', merchantId, affiliate[0]!.id)).toMatchObject({
    updated_at: at(2),
  });
});

it('stores one record once when two replicas insert it at the same moment', async () => {
  const merchantId = randomUUID();
  const { affiliate } = versions();
  await Promise.all([
    new CatalogRepository(models).saveAffiliate(merchantId, affiliate[1]!),
    new CatalogRepository(models).saveAffiliate(merchantId, affiliate[1]!),
  ]);
  expect(
    await models.affiliates.countDocuments({ _id: affiliate[1]!.id, merchant_id: merchantId }),
  ).toBe(1);
});

it('writes a campaign and a link once however many events repeat the same version', async () => {
  const merchantId = randomUUID();
  const campaign = campaignView();
  const affiliates = Array.from({ length: 5 }, () => affiliateView({ campaign }));
  const links: LinkView[] = affiliates.map((a) => linkView(a.id));
  const repo = new CatalogRepository(models);
  const campaignWrites = jest.spyOn(models.campaigns, 'updateOne');
  const linkWrites = jest.spyOn(models.links, 'updateOne');
  try {
    for (const [i, affiliate] of affiliates.entries()) {
      // The affiliate's event and its link's own event, handled side by side as the consumer does.
      await Promise.all([
        repo.saveAffiliate(merchantId, { ...affiliate, links: [links[i]!] }),
        repo.saveLink(merchantId, links[i]!),
      ]);
    }
    expect(campaignWrites).toHaveBeenCalledTimes(1);
    expect(linkWrites).toHaveBeenCalledTimes(links.length);
  } finally {
    campaignWrites.mockRestore();
    linkWrites.mockRestore();
  }
  expect(await models.links.countDocuments({ merchant_id: merchantId })).toBe(links.length);
});

it('gives a token to the newer link and stores the older link again once it moves on', async () => {
  const merchantId = randomUUID();
  const affiliateId = randomUUID();
  const first = { ...linkView(affiliateId), token: 'shared', updated_at: at(1) };
  const second = { ...linkView(affiliateId), token: 'shared', updated_at: at(2) };
  const repo = new CatalogRepository(models);
  await repo.saveLink(merchantId, first);
  // The first link's copy is dropped: the token now belongs to a newer version of another link.
  await repo.saveLink(merchantId, second);
  expect(
    await models.links.findOne({ merchant_id: merchantId, token: 'shared' }).lean(),
  ).toMatchObject({ _id: second.id });
  expect(await models.links.findById(first.id).lean()).toBeNull();
  // A redelivery of the dropped version does not take the token back...
  await repo.saveLink(merchantId, first);
  expect(await models.links.findById(first.id).lean()).toBeNull();
  // ...and the first link's own later version, with its new token, is stored.
  await repo.saveLink(merchantId, { ...first, token: 'moved', updated_at: at(3) });
  expect(await models.links.findById(first.id).lean()).toMatchObject({ token: 'moved' });
});
