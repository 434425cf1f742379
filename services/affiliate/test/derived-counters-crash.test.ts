/**
 * `commission_stats` when a process dies between a fact's write and its increment, over a real
 * MongoDB-protocol server: the redelivered event finds the fact written (no difference to add)
 * and must leave the dead writer's mark in place, so the repair sweep recounts the missed
 * increment. (Found by the chaos test: affiliates whose stats showed a paid commission but a
 * total of 0.) Also: a record's created event, which inserts its fact without reading, still
 * counts exactly once. The statistics are written through the affiliates' repository.
 */
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import type { CommissionView } from '@aff/contracts';
import { TenantRepository, connectMongo } from '@aff/mongo';
import { factModels, type FactModels } from '../src/data/facts.schema';
import { affiliateModel } from '../src/data/affiliate.schema';
import { linkModel } from '../src/data/link.schema';
import { AffiliateRepository } from '../src/data/affiliate.repository';
import { StatsFactsRepository } from '../src/data/stats-facts.repository';
import { DerivedCounters, REPAIR_AFTER_MS } from '../src/domain/derived-counters';

let mongo: Connection;
let facts: FactModels;
let clock = Date.now();
let counters: DerivedCounters;
let affiliates: ReturnType<typeof affiliateModel>;
let links: ReturnType<typeof linkModel>;
const merchant = `m_${randomUUID()}`;
const affiliateId = randomUUID();
const linkId = randomUUID();

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `derived_crash_${Date.now()}`);
  facts = factModels(mongo);
  affiliates = affiliateModel(mongo);
  links = linkModel(mongo);
  // Index builds first: an insert racing the build of a new collection's unique index failed
  // now and then on the local server ("Unknown error: null"), as services avoid at start too.
  await Promise.all([...Object.values(facts), affiliates, links].map((model) => model.init()));
  await affiliates.collection.insertOne({
    _id: affiliateId,
    merchant_id: merchant,
    visitors: 0,
    leads: 0,
    conversions: 0,
  } as never);
  await links.collection.insertOne({
    _id: linkId,
    merchant_id: merchant,
    affiliate_id: affiliateId,
    visitors: 0,
    leads: 0,
    conversions: 0,
  } as never);
  const repository = new AffiliateRepository(
    new TenantRepository(affiliates, { relay: { relay: () => undefined } }),
  );
  counters = new DerivedCounters(
    new StatsFactsRepository(facts, repository),
    () => new Date(clock),
  );
});

afterAll(async () => {
  await mongo.dropDatabase().catch(() => undefined);
  await mongo.close();
});

const affiliate = () =>
  affiliates.collection.findOne({ _id: affiliateId } as never) as Promise<any>;

it('recounts commission_stats for a commission whose increment a dead process never applied', async () => {
  const commissionId = randomUUID();
  const updatedAt = new Date(clock).toISOString();
  await facts.commissions.collection.insertOne({
    _id: commissionId,
    merchant_id: merchant,
    affiliate_id: affiliateId,
    currency: 'USD',
    amount: 1042,
    state: 'pending',
    updated_at: updatedAt,
    pending_since: new Date(clock),
  } as never);
  const commission = {
    id: commissionId,
    currency: 'USD',
    amount: 1042,
    state: 'pending',
    updated_at: updatedAt,
    sale: { affiliate: { id: affiliateId } },
  } as unknown as CommissionView;
  clock += 1000;
  await counters.onCommission(merchant, commission); // the redelivery
  clock += REPAIR_AFTER_MS + 1000;
  expect(await counters.repair()).toBeGreaterThan(0);
  const stats = (await affiliate()).commission_stats;
  expect(stats.currencies.USD.total.cents).toBe(1042);
  expect(stats.currencies.USD.unpaid.cents).toBe(1042);
});

describe('a created event, written without reading first', () => {
  const otherAffiliate = randomUUID();
  // A merchant of its own: the affiliates' unique keys are per merchant.
  const otherMerchant = `m_${randomUUID()}`;
  const statsOf = async () =>
    (
      (await affiliates.collection.findOne({ _id: otherAffiliate } as never)) as {
        commission_stats?: { currencies: Record<string, { total: { cents: number } }> };
      } | null
    )?.commission_stats?.currencies.EUR?.total.cents ?? 0;
  const commission = (id: string, amount: number, updatedAt: string) =>
    ({
      id,
      currency: 'EUR',
      amount,
      state: 'pending',
      updated_at: updatedAt,
      sale: { affiliate: { id: otherAffiliate } },
    }) as unknown as CommissionView;

  beforeAll(async () => {
    await affiliates.collection.insertOne({
      _id: otherAffiliate,
      merchant_id: otherMerchant,
    } as never);
  });

  it('counts each new commission once, also when many arrive together or one comes twice', async () => {
    const at = new Date(clock).toISOString();
    const ids = Array.from({ length: 40 }, () => randomUUID());
    await Promise.all(
      ids.map((id) => counters.onCommission(otherMerchant, commission(id, 100, at), true)),
    );
    expect(await statsOf()).toBe(4000);
    // Redelivered created events find their facts and add nothing.
    await Promise.all(
      ids
        .slice(0, 10)
        .map((id) => counters.onCommission(otherMerchant, commission(id, 100, at), true)),
    );
    expect(await statsOf()).toBe(4000);
    await expect(facts.commissions.countDocuments({ _id: { $in: ids } })).resolves.toBe(40);
  });

  it('is ignored when a later version of the commission was applied first', async () => {
    const id = randomUUID();
    const before = await statsOf();
    await counters.onCommission(otherMerchant, commission(id, 50, '2026-11-24T10:00:01.000Z'));
    await counters.onCommission(
      otherMerchant,
      commission(id, 100, '2026-11-24T10:00:00.000Z'),
      true,
    );
    expect((await statsOf()) - before).toBe(50);
  });
});
