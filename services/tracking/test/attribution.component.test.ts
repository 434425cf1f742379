/**
 * The tracking service through its real entry points: started by the kernel from its
 * definition (so its own build(deps)), on a NATS server of its own and a fresh database. The
 * test plays the affiliate service (catalog events), the gateway (visits over RPC, verified
 * processor events on the gateway stream) and reads what tracking published.
 */
import { randomUUID } from 'node:crypto';
import {
  STREAMS,
  buildEvent,
  type ChargeAttributed,
  type ChargeRefundAttributed,
  type ProcessorEvent,
  type ReferralView,
} from '@aff/contracts';
import { EventPublisher } from '@aff/messaging';
import { newReferral } from '../src/domain/new-referral';
import { trackingService } from '../src/service';
import { componentPerFile, withComponentDb } from '../../../test/support/component';
import { neighboursOf } from './support/tracking-component';
import { awaitEvents, eventsOf } from '../../../test/support/component-events';
import { eventually } from '../../../test/support/processor';
import { affiliateView, campaignView } from '../../../test/support/view-fixtures';

const sut = componentPerFile(trackingService);

const tracking = STREAMS.tracking.name;

const { merchantWithLink, call, processorEvent } = neighboursOf(sut);

it('records a visit through a link over RPC as a referral, with referral.created', async () => {
  const m = await merchantWithLink();
  const reply = await call('recordVisit', m.merchantId, {
    body: { token: m.link.token, url: 'https://shop.example/?via=ada' },
  });
  expect(reply.status).toBe(200);
  const answer = reply.body as { referral: { id: string }; affiliate: { id: string } };
  expect(answer.affiliate.id).toBe(m.affiliate.id);

  const [created] = await awaitEvents<ReferralView>(
    sut.component.natsUrl,
    tracking,
    'referral.created',
    m.merchantId,
  );
  expect(created!.data).toMatchObject({
    id: answer.referral.id,
    visits: 1,
    conversion_state: 'visitor',
    link: { id: m.link.id, token: m.link.token },
  });
  const read = await call('getReferral', m.merchantId, { id: answer.referral.id });
  expect(read.status).toBe(200);
  expect(read.body).toMatchObject({ id: answer.referral.id, conversion_state: 'visitor' });
});

it('answers 404 for an unknown referral and 422 for a visit without a token', async () => {
  const m = await merchantWithLink();
  expect((await call('getReferral', m.merchantId, { id: randomUUID() })).status).toBe(404);
  expect((await call('recordVisit', m.merchantId, { body: {} })).status).toBe(422);
});

it('attributes a charge of the referred customer (charge.attributed) once, and its refund', async () => {
  const m = await merchantWithLink();
  const visit = await call('recordVisit', m.merchantId, { body: { token: m.link.token } });
  const referralId = (visit.body as { referral: { id: string } }).referral.id;
  const customerId = `cus_${randomUUID()}`;

  await processorEvent(m.merchantId, {
    id: `evt_${randomUUID()}`,
    type: 'customer.created',
    data: {
      object: { id: customerId, email: 'buyer@example.com', metadata: { referral: referralId } },
    },
  });
  await awaitEvents(sut.component.natsUrl, tracking, 'referral.lead', m.merchantId);

  const charge = { id: `ch_${randomUUID()}`, customer: customerId, amount: 5000, currency: 'usd' };
  const chargeEvent: ProcessorEvent = {
    id: `evt_${randomUUID()}`,
    type: 'charge.succeeded',
    data: { object: charge },
  };
  await processorEvent(m.merchantId, chargeEvent);
  const [attributed] = await awaitEvents<ChargeAttributed>(
    sut.component.natsUrl,
    tracking,
    'charge.attributed',
    m.merchantId,
  );
  expect(attributed!.data).toMatchObject({
    processor_event_id: chargeEvent.id,
    charge: { id: charge.id, amount: 5000 },
    referral: { id: referralId, conversion_state: 'conversion', processor_customer_id: customerId },
    affiliate: { id: m.affiliate.id },
    campaign: { id: m.campaign.id },
  });
  await awaitEvents(sut.component.natsUrl, tracking, 'referral.converted', m.merchantId);

  // The processor delivers the same event again (in a new message, as after the stream's
  // duplicate window): no second attribution, and no second write. The referral lists the
  // charge it applied; no processed-events record is written for it.
  await withComponentDb(sut.component, async (mongo) => {
    const referrals = mongo.collection<{ _id: string; updated_at?: Date }>('referrals');
    const applied = await referrals.findOne({ _id: referralId });
    expect(applied).toMatchObject({ applied_events: [chargeEvent.id] });
    await processorEvent(m.merchantId, chargeEvent);
    expect(
      await eventsOf(sut.component.natsUrl, tracking, 'charge.attributed', m.merchantId),
    ).toHaveLength(1);
    const after = await referrals.findOne({ _id: referralId });
    expect(after!.updated_at).toEqual(applied!.updated_at);
    expect(after).toMatchObject({ applied_events: [chargeEvent.id] });
    const records = await mongo
      .collection('processed_events')
      .countDocuments({ _id: { $regex: chargeEvent.id } } as never);
    expect(records).toBe(0);
  });

  await processorEvent(m.merchantId, {
    id: `evt_${randomUUID()}`,
    type: 'charge.refunded',
    data: { object: { ...charge, amount_refunded: 5000 } },
  });
  const [refund] = await awaitEvents<ChargeRefundAttributed>(
    sut.component.natsUrl,
    tracking,
    'charge.refund_attributed',
    m.merchantId,
  );
  expect(refund!.data).toMatchObject({
    referral_id: referralId,
    charge: { id: charge.id, amount_refunded: 5000 },
  });
  const read = await eventually(async () => {
    const reply = await call('getReferral', m.merchantId, { id: referralId });
    return (reply.body as ReferralView).conversion_state === 'conversion' ? reply : undefined;
  });
  expect(read.body).toMatchObject({ processor_customer_id: customerId });
});

it('retries a charge whose affiliate its catalog does not know yet, and attributes it later', async () => {
  const merchantId = randomUUID();
  const campaign = campaignView();
  const affiliate = affiliateView({ campaign });
  const customerId = `cus_${randomUUID()}`;
  const now = new Date();
  // A referral made on another replica, whose catalog knew the affiliate; this one's does not.
  const referral = newReferral(merchantId, { link: null, affiliate, campaign }, now, {
    processor_customer_id: customerId,
    conversion_state: 'lead',
    became_lead_at: now,
  });
  await withComponentDb(sut.component, async (mongo) => {
    await mongo.collection('referrals').insertOne({ ...referral, pending_events: [] } as never);
  });
  const publisher = new EventPublisher(sut.component.nc);
  const chargeEvent: ProcessorEvent = {
    id: `evt_${randomUUID()}`,
    type: 'charge.succeeded',
    data: {
      object: { id: `ch_${randomUUID()}`, customer: customerId, amount: 5000, currency: 'usd' },
    },
  };
  await publisher.publish(buildEvent('processor.received', merchantId, { event: chargeEvent }));
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(await eventsOf(sut.component.natsUrl, tracking, 'charge.attributed', merchantId)).toEqual(
    [],
  );

  // The catalog catches up: the charge's next delivery is attributed.
  await publisher.publish(buildEvent('affiliate.created', merchantId, affiliate));
  const [attributed] = await awaitEvents<ChargeAttributed>(
    sut.component.natsUrl,
    tracking,
    'charge.attributed',
    merchantId,
  );
  expect(attributed!.data).toMatchObject({
    referral: { id: referral._id },
    affiliate: { id: affiliate.id },
  });
});
