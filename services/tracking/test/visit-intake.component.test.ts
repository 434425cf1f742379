/**
 * Durable-first visit intake: a visit is answered once it is queued, and the referral is written
 * behind it. With the intake consumer paused, the referral is only in the queue; everything that
 * names it (a lead, a repeat visit, a read, a processor event) must still find it, and once the
 * consumer runs, each referral is written once and announced once.
 */
import { randomUUID } from 'node:crypto';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import {
  STREAMS,
  VISIT_INTAKE,
  type LeadAnswer,
  type ProcessorEvent,
  type ReferralView,
} from '@aff/contracts';
import { trackingService } from '../src/service';
import { componentPerFile, withComponentDb } from '../../../test/support/component';
import { neighboursOf } from './support/tracking-component';
import { eventsOf } from '../../../test/support/component-events';
import { eventually } from '../../../test/support/processor';

const sut = componentPerFile(trackingService);
let jsm: JetStreamManager;

beforeAll(async () => {
  jsm = await jetstreamManager(sut.component.nc);
});
afterEach(async () => {
  await jsm.consumers.resume(VISIT_INTAKE.stream, VISIT_INTAKE.durable);
});

const tracking = STREAMS.tracking.name;

const { merchantWithLink, call, processorEvent } = neighboursOf(sut);

async function visit(merchantId: string, token: string, referral?: string) {
  const reply = await call('recordVisit', merchantId, {
    body: { token, ...(referral ? { referral } : {}) },
  });
  expect(reply.status).toBe(200);
  return (reply.body as { referral: { id: string } }).referral.id;
}

const queued = async () => (await jsm.streams.info(VISIT_INTAKE.stream)).state.messages;

async function writtenReferrals(ids: string[]) {
  return withComponentDb(sut.component, async (mongo) => {
    return await mongo.collection('referrals').countDocuments({ _id: { $in: ids as never[] } });
  });
}

it('finds a referral still in the intake queue for a lead, a repeat visit, a read and a processor event', async () => {
  const m = await merchantWithLink();
  await jsm.consumers.pause(
    VISIT_INTAKE.stream,
    VISIT_INTAKE.durable,
    new Date(Date.now() + 120_000),
  );
  const [forLead, forRepeat, forRead, forCustomer] = [
    await visit(m.merchantId, m.link.token),
    await visit(m.merchantId, m.link.token),
    await visit(m.merchantId, m.link.token),
    await visit(m.merchantId, m.link.token),
  ] as [string, string, string, string];
  const ids = [forLead, forRepeat, forRead, forCustomer];
  // Answered, queued, and not written yet.
  expect(await queued()).toBeGreaterThanOrEqual(4);
  expect(await writtenReferrals(ids)).toBe(0);

  const lead = await call('recordLead', m.merchantId, {
    body: { referral: forLead, email: 'queued@example.com' },
  });
  expect(lead.status).toBe(200);
  expect((lead.body as LeadAnswer).referral.id).toBe(forLead);
  const asLead = await call('getReferral', m.merchantId, { id: forLead });
  expect(asLead.body).toMatchObject({ id: forLead, conversion_state: 'lead' });

  expect(await visit(m.merchantId, m.link.token, forRepeat)).toBe(forRepeat);

  const read = await call('getReferral', m.merchantId, { id: forRead });
  expect(read.status).toBe(200);
  expect(read.body).toMatchObject({ id: forRead, visits: 1, conversion_state: 'visitor' });
  // Another merchant does not see it, queued or not.
  expect((await call('getReferral', randomUUID(), { id: forRead })).status).toBe(404);

  const customer: ProcessorEvent = {
    id: `evt_${randomUUID()}`,
    type: 'customer.created',
    data: {
      object: {
        id: `cus_${randomUUID()}`,
        email: 'c@example.com',
        metadata: { referral: forCustomer },
      },
    },
  };
  await processorEvent(m.merchantId, customer);
  const customerRead = await call('getReferral', m.merchantId, { id: forCustomer });
  expect(customerRead.body).toMatchObject({ id: forCustomer, conversion_state: 'lead' });

  // The consumer runs again: what the readers wrote is not written twice, nor announced twice.
  await jsm.consumers.resume(VISIT_INTAKE.stream, VISIT_INTAKE.durable);
  await eventually(async () => ((await queued()) === 0 ? true : undefined));
  expect(await writtenReferrals(ids)).toBe(4);
  const created = await eventsOf<ReferralView>(
    sut.component.natsUrl,
    tracking,
    'referral.created',
    m.merchantId,
  );
  expect(created.map((e) => e.data.id).sort()).toEqual([...ids].sort());
  const repeat = await call('getReferral', m.merchantId, { id: forRepeat });
  expect(repeat.body).toMatchObject({ id: forRepeat, visits: 2 });
});

it('lists every referral whose visit was answered before the list was asked for', async () => {
  const m = await merchantWithLink();
  const ids = await Promise.all(
    Array.from({ length: 30 }, () => visit(m.merchantId, m.link.token)),
  );
  const list = await call('listReferrals', m.merchantId, {});
  expect(list.status).toBe(200);
  const page = list.body as { data: ReferralView[]; pagination: { total_count: number } };
  expect(page.pagination.total_count).toBe(ids.length);
  expect(page.data.length).toBeGreaterThan(0);
  for (const referral of page.data) expect(ids).toContain(referral.id);
});

it('answers a referral id that cannot be a queue key as an unknown referral', async () => {
  const m = await merchantWithLink();
  for (const id of ['a.b', '>', '*', 'x y', 'a.>']) {
    expect((await call('getReferral', m.merchantId, { id })).status).toBe(404);
  }
});

it('announces a flag once when a queued visit was flagged by its lead before the intake wrote it', async () => {
  const m = await merchantWithLink();
  await jsm.consumers.pause(
    VISIT_INTAKE.stream,
    VISIT_INTAKE.durable,
    new Date(Date.now() + 120_000),
  );
  const id = await visit(m.merchantId, m.link.token);
  // The lead writes the queued referral itself, then flags it (a disposable e-mail).
  const lead = await call('recordLead', m.merchantId, {
    body: { referral: id, email: `${randomUUID()}@mailinator.com` },
  });
  expect(lead.status).toBe(200);
  // The intake consumer then meets its visit again and finds the referral written and flagged.
  await jsm.consumers.resume(VISIT_INTAKE.stream, VISIT_INTAKE.durable);
  await eventually(async () => ((await queued()) === 0 ? true : undefined));
  const flagged = await eventsOf<ReferralView>(
    sut.component.natsUrl,
    tracking,
    'referral.flagged',
    m.merchantId,
  );
  expect(flagged.map((e) => e.data.id)).toEqual([id]);
});

it('lists a referral whose writer died between its insert and its count, once its visit comes again', async () => {
  const m = await merchantWithLink();
  await jsm.consumers.pause(
    VISIT_INTAKE.stream,
    VISIT_INTAKE.durable,
    new Date(Date.now() + 120_000),
  );
  const [lost, kept] = [
    await visit(m.merchantId, m.link.token),
    await visit(m.merchantId, m.link.token),
  ];
  // A read writes both queued referrals (insert, then count), as the intake consumer would.
  for (const id of [lost, kept])
    expect((await call('getReferral', m.merchantId, { id })).status).toBe(200);
  // What a writer killed between its insert and its count leaves: the referral stored, the
  // merchant's count and newest ids without it. Its events travel in the queued visit, so no
  // outbox sweep ever sees it; only the visit's redelivery can.
  await withComponentDb(sut.component, async (mongo) => {
    const uncounted = await mongo
      .collection('referral_counts')
      .updateOne({ _id: m.merchantId as never, 'newest.id': lost }, {
        $inc: { count: -1 },
        $pull: { newest: { id: lost } },
      } as never);
    expect(uncounted.modifiedCount).toBe(1);
  });
  const listed = async () => {
    const list = await call('listReferrals', m.merchantId, {});
    const page = list.body as { data: ReferralView[]; pagination: { total_count: number } };
    return { ids: page.data.map((r) => r.id).sort(), total: page.pagination.total_count };
  };
  expect(await listed()).toEqual({ ids: [kept], total: 1 });

  // The visit comes again (here: the intake consumer meets it, finding the referral stored).
  await jsm.consumers.resume(VISIT_INTAKE.stream, VISIT_INTAKE.durable);
  await eventually(async () => ((await queued()) === 0 ? true : undefined));
  expect(await listed()).toEqual({ ids: [lost, kept].sort(), total: 2 });
});
