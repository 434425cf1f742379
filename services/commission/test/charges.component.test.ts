/**
 * The commission service through its real entry points: started by the kernel from its
 * definition (so its own build(deps)), on a NATS server of its own and a fresh database. The
 * test plays the tracking service (it publishes `charge.attributed` and
 * `charge.refund_attributed` on the tracking stream) and reads what the service published and
 * answers over RPC.
 */
import { randomUUID } from 'node:crypto';
import {
  STREAMS,
  buildEvent,
  deterministicId,
  type CampaignView,
  type ChargeAttributed,
  type ChargeRefundAttributed,
  type CommissionView,
  type EventEnvelope,
  type ProcessorCharge,
  type ReferralView,
} from '@aff/contracts';
import { EventPublisher } from '@aff/messaging';
import { commissionService } from '../src/service';
import { componentPerFile, withComponentDb } from '../../../test/support/component';
import { awaitEvents, eventsOf, publishHandled } from '../../../test/support/component-events';
import { affiliateView, campaignView } from '../../../test/support/view-fixtures';

const CHARGES_DURABLE = 'commission-charges';
const sut = componentPerFile(commissionService);

function referral(customerId: string): ReferralView {
  const now = new Date();
  return {
    id: randomUUID(),
    link: null,
    visits: 1,
    customer: { platform: 'processor', id: customerId, name: null, email: null },
    created_at: now.toISOString(),
    became_lead_at: now.toISOString(),
    became_conversion_at: now.toISOString(),
    expires_at: new Date(now.getTime() + 60 * 86_400_000).toISOString(),
    updated_at: now.toISOString(),
    deactivated_at: null,
    conversion_state: 'conversion',
    processor_account_id: null,
    processor_customer_id: customerId,
  };
}

/** A merchant with one attributed customer, and its charges' events as tracking builds them. */
function scenario(campaignFields: Partial<CampaignView> = {}) {
  const merchantId = randomUUID();
  const customerId = `cus_${randomUUID()}`;
  const the = { campaign: campaignView(campaignFields), affiliate: affiliateView() };
  const ref = referral(customerId);
  const charge = (fields: Partial<ProcessorCharge> = {}): ProcessorCharge => ({
    id: `ch_${randomUUID()}`,
    customer: customerId,
    amount: 10_000,
    amount_refunded: 0,
    currency: 'usd',
    ...fields,
  });
  return {
    merchantId,
    charge,
    attributed: (c: ProcessorCharge): EventEnvelope<ChargeAttributed> =>
      buildEvent('charge.attributed', merchantId, {
        processor_event_id: `evt_${randomUUID()}`,
        processor_account_id: null,
        charge: c,
        referral: ref,
        ...the,
      }),
    refunded: (c: ProcessorCharge, processorEventId = `evt_${randomUUID()}`) =>
      buildEvent('charge.refund_attributed', merchantId, {
        processor_event_id: processorEventId,
        charge: c,
        referral_id: ref.id,
      } satisfies ChargeRefundAttributed),
  };
}

const tracking = STREAMS.tracking.name;
const commissions = STREAMS.commission.name;

/** `events` on the tracking stream, once the service's charge consumer has handled them. */
const deliver = (...events: EventEnvelope[]) =>
  publishHandled(sut.component.nc, tracking, CHARGES_DURABLE, events);
/** The events of `type` the service published for `merchantId`, once there is one. */
const published = <T = any>(type: string, merchantId: string) =>
  awaitEvents<T>(sut.component.natsUrl, commissions, type, merchantId);

/** The merchant's commissions over RPC, as the gateway lists them. */
function listCommissions(merchantId: string) {
  return sut.rpc.call(
    'commission',
    'listCommissions',
    { merchant_id: merchantId, params: {}, query: {}, expand: [], api_key_id: null },
    randomUUID(),
  );
}

async function getCommission(merchantId: string, id: string) {
  const request = {
    merchant_id: merchantId,
    params: { id },
    query: {},
    expand: [],
    api_key_id: null,
  };
  return sut.rpc.call('commission', 'getCommission', request, randomUUID());
}

it('turns charge.attributed into a sale and a commission.created, readable over RPC', async () => {
  const s = scenario();
  await deliver(s.attributed(s.charge()));

  const [created] = await published<CommissionView>('commission.created', s.merchantId);
  expect(created!.data).toMatchObject({ amount: 2000, currency: 'USD', state: 'pending' });
  expect(created!.data.sale).toMatchObject({
    sale_amount_cents: 10_000,
    charge_amount_cents: 10_000,
  });
  await published('sale.created', s.merchantId);

  const reply = await getCommission(s.merchantId, created!.data.id);
  expect(reply.status).toBe(200);
  expect(reply.body).toMatchObject({ id: created!.data.id, amount: 2000, state: 'pending' });
});

it('has no second effect when the same charge is attributed again', async () => {
  const s = scenario();
  const charge = s.charge();
  await deliver(s.attributed(charge));
  await published('commission.created', s.merchantId);
  // A second delivery of the same processor charge (tracking re-run, replay): new envelope id.
  await deliver(s.attributed(charge), s.attributed(charge));

  expect(
    await eventsOf(sut.component.natsUrl, commissions, 'commission.created', s.merchantId),
  ).toHaveLength(1);
  expect(
    await eventsOf(sut.component.natsUrl, commissions, 'sale.created', s.merchantId),
  ).toHaveLength(1);
  const list = await listCommissions(s.merchantId);
  expect(list.status).toBe(200);
  expect((list.body as { data: unknown[] }).data).toHaveLength(1);
});

it('writes what a run that died halfway left unwritten: the commission, or the sale', async () => {
  await withComponentDb(sut.component, async (mongo) => {
    const sales = mongo.collection('sales');
    const stored = mongo.collection('commissions');
    const rerun = async (s: ReturnType<typeof scenario>, charge: ProcessorCharge) => {
      await deliver(s.attributed(charge));
    };
    /** A charge run once, its records in `lost` deleted, then run again: one sale, one commission. */
    const rerunWithout = async (lost: typeof sales) => {
      const s = scenario();
      const charge = s.charge();
      await rerun(s, charge);
      await published('commission.created', s.merchantId);
      await lost.deleteMany({ merchant_id: s.merchantId });
      await rerun(s, charge);
      expect(await stored.countDocuments({ merchant_id: s.merchantId })).toBe(1);
      expect(await sales.countDocuments({ merchant_id: s.merchantId })).toBe(1);
    };

    // Only the sale was written: the re-run decides the commission.
    await rerunWithout(stored);
    // Only the commission was written: the re-run writes the sale and no second commission.
    await rerunWithout(sales);
  });
});

it('writes the sale once, decided, and the commission once: no outbox on either', async () => {
  await withComponentDb(sut.component, async (mongo) => {
    const s = scenario();
    await deliver(s.attributed(s.charge()));
    await published('sale.created', s.merchantId);
    await published('commission.created', s.merchantId);
    // The events went to the stream straight from the handler, before its ack: nothing was
    // stored in the records to clear afterwards, and the sale was written already decided.
    const [sale] = await mongo.collection('sales').find({ merchant_id: s.merchantId }).toArray();
    const [commission] = await mongo
      .collection('commissions')
      .find({ merchant_id: s.merchantId })
      .toArray();
    expect(sale).toMatchObject({ commission_pending: false, pending_events: [] });
    expect(commission).toMatchObject({ pending_events: [] });
  });
});

it('publishes and counts again what a run that died before its ack wrote but never published', async () => {
  await withComponentDb(sut.component, async (mongo) => {
    // What a run leaves when it dies after both inserts and before publishing or counting:
    // the records of another merchant's charge, moved to this one.
    const model = scenario();
    await deliver(model.attributed(model.charge()));
    await published('commission.created', model.merchantId);
    const s = scenario();
    const charge = s.charge();
    const saleId = deterministicId(`${s.merchantId}:sale:${charge.id}`);
    const commissionId = randomUUID();
    const [sale] = await mongo
      .collection('sales')
      .find({ merchant_id: model.merchantId })
      .toArray();
    const [commission] = await mongo
      .collection('commissions')
      .find({ merchant_id: model.merchantId })
      .toArray();
    await mongo.collection('sales').insertOne({
      ...sale!,
      _id: saleId as never,
      merchant_id: s.merchantId,
      processor_charge_id: charge.id,
      stats_marks: [],
    });
    await mongo.collection('commissions').insertOne({
      ...commission!,
      _id: commissionId as never,
      merchant_id: s.merchantId,
      sale_id: saleId,
      stats_marks: [],
    });

    // The charge's message comes again (it was never acked).
    await deliver(s.attributed(charge));
    const [created] = await published<CommissionView>('commission.created', s.merchantId);
    expect(created!.data).toMatchObject({ id: commissionId, sale: { id: saleId } });
    await published('sale.created', s.merchantId);
    // Counted in the merchant's list once, and no second commission.
    const list = await listCommissions(s.merchantId);
    expect(list.body).toMatchObject({
      pagination: { total_count: 1 },
      data: [{ id: commissionId }],
    });
    const stored = await mongo
      .collection('commissions')
      .countDocuments({ merchant_id: s.merchantId });
    expect(stored).toBe(1);
  });
});

it('earns on the charge, not on a sale a refund reduced between a crash and the re-run', async () => {
  await withComponentDb(sut.component, async (mongo) => {
    const s = scenario();
    const charge = s.charge();
    await deliver(s.attributed(charge));
    await published('commission.created', s.merchantId);
    // What a run that died after writing the sale leaves: the sale, its commission undecided.
    await mongo.collection('commissions').deleteMany({ merchant_id: s.merchantId });
    await mongo
      .collection('sales')
      .updateOne({ merchant_id: s.merchantId }, { $set: { commission_pending: true } });

    // The full refund arrives first: it reduces the sale and waits for the commission.
    await new EventPublisher(sut.component.nc).publish(
      s.refunded({ ...charge, amount_refunded: 10_000 }),
    );
    await published('sale.refunded', s.merchantId);
    // The charge's redelivery decides the commission on 10,000, and the refund then voids it.
    await deliver(s.attributed(charge));
    const [voided] = await published<CommissionView>('commission.voided', s.merchantId);
    expect(voided!.data).toMatchObject({ state: 'voided' });
    const stored = await mongo
      .collection('commissions')
      .find({ merchant_id: s.merchantId })
      .toArray();
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ base_amount: 2000, state: 'voided' });
  });
});

it('reduces the commission on a partial refund and voids it on a full one, each once', async () => {
  const s = scenario();
  const charge = s.charge();
  await deliver(s.attributed(charge));
  const [created] = await published<CommissionView>('commission.created', s.merchantId);
  const id = created!.data.id;

  // A quarter refunded: 20 % of the 7500 left.
  const partial = s.refunded({ ...charge, amount_refunded: 2500 }, 'evt_partial');
  await deliver(partial);
  const [updated] = await published<CommissionView>('commission.updated', s.merchantId);
  expect(updated!.data).toMatchObject({ id, amount: 1500, state: 'pending' });
  await published('sale.refunded', s.merchantId);

  // The same refund event again (a redelivery from the processor) changes nothing.
  await deliver(s.refunded({ ...charge, amount_refunded: 2500 }, 'evt_partial'));
  expect(
    await eventsOf(sut.component.natsUrl, commissions, 'commission.updated', s.merchantId),
  ).toHaveLength(1);
  expect((await getCommission(s.merchantId, id)).body).toMatchObject({ amount: 1500 });

  await deliver(s.refunded({ ...charge, amount_refunded: 10_000 }));
  const [voided] = await published<CommissionView>('commission.voided', s.merchantId);
  expect(voided!.data).toMatchObject({ id, state: 'voided' });
  expect(voided!.data.voided_at).toEqual(expect.any(String));
  expect((await getCommission(s.merchantId, id)).body).toMatchObject({ state: 'voided' });
});

it('earns nothing for a disabled affiliate', async () => {
  const s = scenario();
  const event = s.attributed(s.charge());
  event.data.affiliate.state = 'disabled';
  await deliver(event);
  await published('sale.created', s.merchantId);
  expect(
    await eventsOf(sut.component.natsUrl, commissions, 'commission.created', s.merchantId),
  ).toEqual([]);
});
