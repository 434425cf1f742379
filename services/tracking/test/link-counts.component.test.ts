/**
 * Link counts in memory over the real MongoDB-protocol server: a snapshot plus the events after
 * its cut count each referral once. An event for a referral the snapshot already holds adds
 * nothing (the subscription opens before the load, so such events do arrive); one after the cut
 * counts; a referral stamped before the cut but written after the snapshot was read is counted
 * when the slice before the cut is read again; a repeated event counts once.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Connection, Model } from 'mongoose';
import type { EventEnvelope, ReferralView } from '@aff/contracts';
import { connectMongo } from '@aff/mongo';
import { LinkCountsMemory } from '../src/data/link-counts';
import { referralModel, type ReferralDocument } from '../src/data/referral.schema';

const SETTLE_MS = 400;
let mongo: Connection;
let model: Model<ReferralDocument>;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `link_counts_test_${Date.now()}`);
  model = referralModel(mongo);
  await model.init();
});
afterAll(async () => {
  await mongo.dropDatabase();
  await mongo.close();
});

interface Stamps {
  created: Date;
  lead?: Date;
  conversion?: Date;
}

async function store(merchantId: string, linkId: string, id: string, at: Stamps): Promise<void> {
  await model.collection.insertOne({
    _id: id,
    merchant_id: merchantId,
    link_id: linkId,
    customer_key: `k_${id}`,
    created_at: at.created,
    became_lead_at: at.lead ?? null,
    became_conversion_at: at.conversion ?? null,
  } as never);
}

function event(merchantId: string, linkId: string, id: string, at: Stamps, eventId = randomUUID()) {
  return {
    id: eventId,
    merchant_id: merchantId,
    data: {
      id,
      link: { id: linkId },
      created_at: at.created.toISOString(),
      became_lead_at: at.lead?.toISOString() ?? null,
      became_conversion_at: at.conversion?.toISOString() ?? null,
    },
  } as unknown as EventEnvelope<ReferralView>;
}

it('counts the snapshot up to its cut and the events after it, each referral once', async () => {
  const merchant = `m_${randomUUID()}`;
  const link = `l_${randomUUID()}`;
  const long = new Date(Date.now() - 60_000);
  const old = { created: long, lead: long, conversion: long };
  await store(merchant, link, 'r1', old);
  await store(merchant, link, 'r2', { created: long });
  const counts = new LinkCountsMemory(model, SETTLE_MS);
  await counts.load();
  expect(counts.get(merchant, link)).toEqual({ visitors: 2, leads: 1, conversions: 1 });

  // The snapshot holds r1 already: its events (arriving late) add nothing.
  counts.apply(event(merchant, link, 'r1', old), 'visitors');
  counts.apply(event(merchant, link, 'r1', old), 'leads');
  expect(counts.get(merchant, link)).toEqual({ visitors: 2, leads: 1, conversions: 1 });

  // r2 becomes a lead after the cut, and r3 is created after it: counted, a repeat once.
  const later = { created: long, lead: new Date(Date.now() + 5) };
  await delay(10);
  const lead = event(merchant, link, 'r2', later);
  counts.apply(lead, 'leads');
  counts.apply(lead, 'leads');
  counts.apply(event(merchant, link, 'r3', { created: new Date() }), 'visitors');
  expect(counts.get(merchant, link)).toEqual({ visitors: 3, leads: 2, conversions: 1 });
});

it('counts a referral stamped before the cut but written after the snapshot was read', async () => {
  const merchant = `m_${randomUUID()}`;
  const link = `l_${randomUUID()}`;
  const counts = new LinkCountsMemory(model, SETTLE_MS);
  const loadedAt = Date.now();
  await counts.load();
  expect(counts.get(merchant, link)).toEqual({ visitors: 0, leads: 0, conversions: 0 });
  // Stamped just before the cut, landing after the read: its event is before the cut, so only
  // the second read of the slice can count it.
  const stamped = { created: new Date(loadedAt - 50) };
  await store(merchant, link, 'late', stamped);
  counts.apply(event(merchant, link, 'late', stamped), 'visitors');
  expect(counts.get(merchant, link).visitors).toBe(0);
  await delay(SETTLE_MS + 300);
  expect(counts.get(merchant, link)).toEqual({ visitors: 1, leads: 0, conversions: 0 });
});
