/**
 * Over the real MongoDB-protocol server: the merchant's count of affiliates by state
 * (affiliate_state_counts), kept by the affiliate repository. The first read counts the
 * affiliates already there; inserts and state changes move it; of two changes made over the
 * same state only the one that applied moves it; a change of state that does not say which
 * state it replaces is refused (the count could not know what it left); other merchants apart.
 */
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import type { EventEnvelope } from '@aff/contracts';
import {
  MongoPendingEventStore,
  TenantRepository,
  connectMongo,
  repairLeftoversWith,
} from '@aff/mongo';
import { AffiliateRepository } from '../src/data/affiliate.repository';
import { affiliateModel, type AffiliateRecord } from '../src/data/affiliate.schema';
import { AffiliateStateCounts, affiliateStateCountModel } from '../src/data/affiliate-state-counts';
import type { StateMove } from '../src/domain/records';
import { affiliateRecord } from './support/affiliate-record';

let mongo: Connection;
let affiliates: AffiliateRepository;
let counts: AffiliateStateCounts;
let records: ReturnType<typeof affiliateModel>;
/** The same collection written by a process that dies right after each write of a state. */
let dying: AffiliateRepository;

/**
 * A count that never moves for the writes named in `dies` (by their event's id), as if the
 * process died right after writing them; other moves (earlier writes') are applied as usual.
 */
class DiesBeforeCounting extends AffiliateStateCounts {
  readonly dies = new Set<string>();
  override async apply(merchantId: string, move: StateMove): Promise<void> {
    if (this.dies.has(move.id)) throw new Error('process died');
    return super.apply(merchantId, move);
  }
}
let dead: DiesBeforeCounting;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `affiliate_states_test_${Date.now()}`);
  records = affiliateModel(mongo);
  await records.init();
  counts = new AffiliateStateCounts(affiliateStateCountModel(mongo), records);
  // Nothing relays: every write's events stay pending, as after a crash before the relay.
  const relay = { relay: () => undefined };
  affiliates = new AffiliateRepository(new TenantRepository(records, { relay }), counts);
  dead = new DiesBeforeCounting(affiliateStateCountModel(mongo), records);
  dying = new AffiliateRepository(new TenantRepository(records, { relay }), dead);
  repairLeftoversWith(records.collection, (docs) => counts.repairLeftovers(docs));
});
afterAll(async () => {
  await mongo.dropDatabase();
  await mongo.close();
});

const anEvent = (): EventEnvelope =>
  ({ id: `evt_${randomUUID()}`, type: 'affiliate.updated', data: {} }) as unknown as EventEnvelope;

async function anAffiliate(
  merchantId: string,
  state: AffiliateRecord['state'] = 'active',
  repo = affiliates,
) {
  const record = affiliateRecord(merchantId, new Date(), { state });
  await repo.insertWithEvents(record, [dyingIf(repo)], {});
  return record;
}

const change = (
  a: AffiliateRecord,
  from: AffiliateRecord['state'],
  to: AffiliateRecord['state'],
  repo = affiliates,
) =>
  repo.updateWithEvents(a.merchant_id, a._id, { state: to }, [dyingIf(repo)], {}, { state: from });

/** An event for a write; written through `dying`, the process dies right after that write. */
function dyingIf(repo: AffiliateRepository): EventEnvelope {
  const event = anEvent();
  if (repo === dying) dead.dies.add(event.id);
  return event;
}

/** The outbox sweep, run as it would be once the writes' events are past its grace. */
async function sweep(): Promise<void> {
  await records.collection.updateMany(
    {},
    { $set: { 'pending_events.$[].queued_at': new Date(0) } },
  );
  await new MongoPendingEventStore([records]).findPending(new Date(), 10_000);
}

it('counts the affiliates there on the first read, then follows inserts and changes', async () => {
  const m = `m_${randomUUID()}`;
  const [a] = [await anAffiliate(m), await anAffiliate(m), await anAffiliate(m, 'disabled')];
  // Written before any read: no count document yet, the first read counts them once.
  expect(await counts.get(m)).toEqual({ active: 2, disabled: 1, suspicious: 0 });
  await anAffiliate(m);
  expect(await counts.get(m)).toEqual({ active: 3, disabled: 1, suspicious: 0 });
  expect(await change(a!, 'active', 'suspicious')).not.toBeNull();
  expect(await counts.get(m)).toEqual({ active: 2, disabled: 1, suspicious: 1 });
  expect(await counts.get(`m_${randomUUID()}`)).toEqual({ active: 0, disabled: 0, suspicious: 0 });
});

it('moves the count once when two changes race over the same state', async () => {
  const m = `m_${randomUUID()}`;
  const a = await anAffiliate(m);
  expect(await counts.get(m)).toEqual({ active: 1, disabled: 0, suspicious: 0 });
  const results = await Promise.all([
    change(a, 'active', 'disabled'),
    change(a, 'active', 'suspicious'),
  ]);
  expect(results.filter(Boolean)).toHaveLength(1);
  const won = results[0] ? 'disabled' : 'suspicious';
  expect(await counts.get(m)).toEqual({ active: 0, disabled: 0, suspicious: 0, [won]: 1 });
});

it('refuses a change of state that does not say which state it replaces', async () => {
  const m = `m_${randomUUID()}`;
  const a = await anAffiliate(m);
  await expect(
    affiliates.updateWithEvents(m, a._id, { state: 'disabled' }, [], {}),
  ).rejects.toThrow(/expect the state it replaces/);
  expect((await affiliates.findById(m, a._id))!.state).toBe('active');
});

it('moves the count of a write whose process died before counting it, once, by the sweep', async () => {
  const m = `m_${randomUUID()}`;
  const a = await anAffiliate(m);
  expect(await counts.get(m)).toEqual({ active: 1, disabled: 0, suspicious: 0 });
  // Written (the state and its move), not counted: the write stands, its event pending.
  expect(await change(a, 'active', 'disabled', dying)).not.toBeNull();
  expect((await affiliates.findById(m, a._id))!.state).toBe('disabled');
  expect(await counts.get(m)).toEqual({ active: 1, disabled: 0, suspicious: 0 });
  await anAffiliate(m, 'suspicious', dying);
  await sweep();
  expect(await counts.get(m)).toEqual({ active: 0, disabled: 1, suspicious: 1 });
  // The events are still pending here (nothing relays): sweeping again moves nothing twice.
  await sweep();
  expect(await counts.get(m)).toEqual({ active: 0, disabled: 1, suspicious: 1 });
});

it('applies a move left uncounted before the next change of the same affiliate', async () => {
  const m = `m_${randomUUID()}`;
  const a = await anAffiliate(m);
  expect(await counts.get(m)).toEqual({ active: 1, disabled: 0, suspicious: 0 });
  expect(await change(a, 'active', 'disabled', dying)).not.toBeNull();
  // No sweep in between: the next change applies the lost move first, then its own.
  expect(await change(a, 'disabled', 'suspicious')).not.toBeNull();
  expect(await counts.get(m)).toEqual({ active: 0, disabled: 0, suspicious: 1 });
  await sweep();
  expect(await counts.get(m)).toEqual({ active: 0, disabled: 0, suspicious: 1 });
});
