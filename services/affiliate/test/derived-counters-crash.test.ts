/**
 * A process that dies between a fact's write and its increment, over a real MongoDB-protocol
 * server: the redelivered event finds the fact written (no difference to add) and must leave
 * the dead writer's mark in place, so the repair sweep recounts the missed increment. (Found by
 * the chaos test: affiliates whose stats showed a paid commission but a total of 0.) Also: a
 * record's created event, which inserts its fact without reading, still counts exactly once.
 */
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import type { CommissionView, ReferralView } from '@aff/contracts';
import { connectMongo } from '@aff/mongo';
import { factModels, type FactModels } from '../src/data/facts.schema';
import { affiliateModel } from '../src/data/affiliate.schema';
import { linkModel } from '../src/data/link.schema';
import { couponModel } from '../src/data/coupon.schema';
import { CounterRepository } from '../src/data/counter.repository';
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
  counters = new DerivedCounters(
    new CounterRepository(facts, affiliates, links, couponModel(mongo)),
    () => new Date(clock),
  );
});

afterAll(async () => {
  await mongo.dropDatabase().catch(() => undefined);
  await mongo.close();
});

const affiliate = () =>
  affiliates.collection.findOne({ _id: affiliateId } as never) as Promise<any>;
const link = () => links.collection.findOne({ _id: linkId } as never) as Promise<any>;

it.each([
  ['a later event of the referral', false],
  ['its created event (the insert finds the fact)', true],
])(
  'recounts a referral whose increment a dead process never applied, redelivered as %s',
  async (_, first) => {
    const referralId = randomUUID();
    // What the dying process left: the fact, marked, and no increment.
    await facts.referrals.collection.insertOne({
      _id: referralId,
      merchant_id: merchant,
      affiliate_id: affiliateId,
      link_id: linkId,
      lead: 0,
      conversion: 0,
      pending_since: new Date(clock),
    } as never);
    const before = { affiliate: (await affiliate()).visitors, link: (await link()).visitors };
    const referral = {
      id: referralId,
      affiliate: { id: affiliateId },
      link: { id: linkId },
      became_lead_at: null,
      became_conversion_at: null,
    } as unknown as ReferralView;
    clock += 1000;
    await counters.onReferral(merchant, referral, first); // the redelivery: nothing new to add
    expect((await affiliate()).visitors).toBe(before.affiliate);
    clock += REPAIR_AFTER_MS + 1000;
    expect(await counters.repair()).toBeGreaterThan(0);
    expect((await affiliate()).visitors).toBe(before.affiliate + 1);
    expect((await link()).visitors).toBe(before.link + 1);
    const fact = await facts.referrals.findById(referralId).lean();
    expect(fact?.pending_since ?? null).toBeNull();
  },
);

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

it('still unmarks at once when no earlier writer left a mark', async () => {
  const referralId = randomUUID();
  await counters.onReferral(merchant, {
    id: referralId,
    affiliate: { id: affiliateId },
    link: { id: linkId },
    became_lead_at: new Date(clock).toISOString(),
    became_conversion_at: null,
  } as unknown as ReferralView);
  // Unmarks ride on a shared bulk write; give it a moment.
  for (let i = 0; i < 50; i++) {
    const fact = await facts.referrals.findById(referralId).lean();
    if (!fact?.pending_since) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  expect((await facts.referrals.findById(referralId).lean())?.pending_since ?? null).toBeNull();
  expect((await affiliate()).leads).toBe(1);
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

describe("a referral's created event, written without reading first", () => {
  const countAffiliate = randomUUID();
  const countLink = randomUUID();
  const countMerchant = `m_${randomUUID()}`;
  const referral = (id: string, lead = false) =>
    ({
      id,
      affiliate: { id: countAffiliate },
      link: { id: countLink },
      became_lead_at: lead ? new Date(clock).toISOString() : null,
      became_conversion_at: null,
    }) as unknown as ReferralView;
  const counts = async () => {
    const [a, l] = await Promise.all([
      affiliates.collection.findOne({ _id: countAffiliate } as never) as Promise<any>,
      links.collection.findOne({ _id: countLink } as never) as Promise<any>,
    ]);
    return { affiliate: [a.visitors, a.leads], link: [l.visitors, l.leads] };
  };

  beforeAll(async () => {
    const zero = { merchant_id: countMerchant, visitors: 0, leads: 0, conversions: 0 };
    await affiliates.collection.insertOne({ _id: countAffiliate, ...zero } as never);
    await links.collection.insertOne({
      _id: countLink,
      affiliate_id: countAffiliate,
      ...zero,
    } as never);
  });

  it('counts each new referral once, also when many arrive together or one comes twice', async () => {
    const ids = Array.from({ length: 30 }, () => randomUUID());
    await Promise.all(ids.map((id) => counters.onReferral(countMerchant, referral(id), true)));
    expect(await counts()).toEqual({ affiliate: [30, 0], link: [30, 0] });
    // Redelivered created events find their facts and add nothing.
    await Promise.all(
      ids.slice(0, 10).map((id) => counters.onReferral(countMerchant, referral(id), true)),
    );
    expect(await counts()).toEqual({ affiliate: [30, 0], link: [30, 0] });
    await expect(facts.referrals.countDocuments({ _id: { $in: ids } })).resolves.toBe(30);
  });

  it('adds nothing when the lead event of the referral was counted before its created event', async () => {
    const id = randomUUID();
    await counters.onReferral(countMerchant, referral(id, true));
    expect(await counts()).toEqual({ affiliate: [31, 1], link: [31, 1] });
    await counters.onReferral(countMerchant, referral(id), true);
    expect(await counts()).toEqual({ affiliate: [31, 1], link: [31, 1] });
  });
});

it('counts each referral once when two replicas raise its fact at the same moment', async () => {
  // Another process's counters over the same collections: its reads and conditional writes
  // are batched apart from ours, so both may read a fact in the same state.
  const replica = new DerivedCounters(
    new CounterRepository(facts, affiliates, links, couponModel(mongo)),
    () => new Date(clock),
  );
  const before = await affiliate();
  const ids = Array.from({ length: 30 }, () => randomUUID());
  const view = (id: string, lead: boolean, conversion: boolean) =>
    ({
      id,
      affiliate: { id: affiliateId },
      link: { id: linkId },
      became_lead_at: lead ? new Date(clock).toISOString() : null,
      became_conversion_at: conversion ? new Date(clock).toISOString() : null,
    }) as unknown as ReferralView;
  await Promise.all(ids.map((id) => counters.onReferral(merchant, view(id, false, false), true)));
  await Promise.all(
    ids.flatMap((id) => [
      counters.onReferral(merchant, view(id, true, false)),
      replica.onReferral(merchant, view(id, true, true)),
    ]),
  );
  const after = await affiliate();
  expect(after.visitors - before.visitors).toBe(ids.length);
  expect(after.leads - before.leads).toBe(ids.length);
  expect(after.conversions - before.conversions).toBe(ids.length);
  const stored = await facts.referrals
    .find({ _id: { $in: ids } })
    .lean()
    .exec();
  expect(stored.map((fact) => [fact.lead, fact.conversion])).toEqual(ids.map(() => [1, 1]));
});
