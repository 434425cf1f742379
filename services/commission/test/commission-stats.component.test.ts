/**
 * `commission_stats` kept by the commission service (data/stats-tally.ts), through its real
 * entry points: charges and refunds arrive as tracking publishes them, the figures are read
 * with the internal operations `getAffiliateCommissionStats` and `getCommissionTotals`. Then
 * what a crash leaves (reservations nobody settled) is settled by the sweep from the records'
 * marks, and records written before the stats were kept are counted once by the backfill.
 */
import { randomUUID } from 'node:crypto';
import {
  OPERATIONS,
  STREAMS,
  buildEvent,
  type CampaignView,
  type CommissionStats,
  type ProcessorCharge,
  type ReferralView,
} from '@aff/contracts';
import { callInternal } from '@aff/messaging';
import { connectMongo } from '@aff/mongo';
import type { Connection } from 'mongoose';
import { statsModels } from '../src/data/commission-stats.schema';
import { commissionModel } from '../src/data/commission.schema';
import { saleModel } from '../src/data/sale.schema';
import { StatsBackfill } from '../src/data/stats-backfill';
import { StatsSweep } from '../src/data/stats-sweep';
import { StatsTally } from '../src/data/stats-tally';
import { commissionService } from '../src/service';
import { componentPerFile } from '../../../test/support/component';
import { publishHandled } from '../../../test/support/component-events';
import { affiliateView, campaignView } from '../../../test/support/view-fixtures';

const CHARGES_DURABLE = 'commission-charges';
const sut = componentPerFile(commissionService);
let mongo: Connection;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, sut.component.mongoDb);
});
afterAll(async () => {
  await mongo?.close();
});

function referral(customerId: string): ReferralView {
  const now = new Date().toISOString();
  return {
    ...{ id: randomUUID(), link: null, visits: 1, processor_account_id: null },
    customer: { platform: 'processor', id: customerId, name: null, email: null },
    ...{ created_at: now, became_lead_at: now, became_conversion_at: now, updated_at: now },
    expires_at: new Date(Date.now() + 60 * 86_400_000).toISOString(),
    deactivated_at: null,
    conversion_state: 'conversion',
    processor_customer_id: customerId,
  };
}

/** An affiliate of `merchantId` with one attributed customer; its charges and refunds. */
function affiliateOf(merchantId: string, campaign: Partial<CampaignView> = {}) {
  const customerId = `cus_${randomUUID()}`;
  const the = { campaign: campaignView(campaign), affiliate: affiliateView() };
  const ref = referral(customerId);
  return {
    id: the.affiliate.id,
    charge: (amount: number, currency: string): ProcessorCharge => ({
      ...{ id: `ch_${randomUUID()}`, customer: customerId, amount, amount_refunded: 0, currency },
    }),
    attributed: (charge: ProcessorCharge) =>
      buildEvent('charge.attributed', merchantId, {
        ...{ processor_event_id: `evt_${randomUUID()}`, processor_account_id: null, charge },
        ...{ referral: ref, ...the },
      }),
    refunded: (charge: ProcessorCharge) =>
      buildEvent('charge.refund_attributed', merchantId, {
        ...{ processor_event_id: `evt_${randomUUID()}`, charge, referral_id: ref.id },
      }),
  };
}

const handled = (...events: Parameters<typeof publishHandled>[3]) =>
  publishHandled(sut.component.nc, STREAMS.tracking.name, CHARGES_DURABLE, events);

function figures(stats: CommissionStats, currency: string) {
  const c = stats.currencies[currency];
  return (
    c && [c.unpaid, c.due, c.paid, c.total, c.gross_revenue, c.net_revenue].map((m) => m.cents)
  );
}

async function totals(merchantId: string) {
  const reply = await callInternal(
    sut.rpc,
    OPERATIONS.getCommissionTotals,
    { merchant_id: merchantId },
    randomUUID(),
  );
  return reply.commission_stats;
}

async function ofAffiliates(merchantId: string, ids: string[]) {
  const reply = await callInternal(
    sut.rpc,
    OPERATIONS.getAffiliateCommissionStats,
    { merchant_id: merchantId, affiliate_ids: ids },
    randomUUID(),
  );
  return reply.stats;
}

it('keeps each affiliate and the merchant exact through charges, a repeat and a refund', async () => {
  const merchantId = randomUUID();
  const a = affiliateOf(merchantId); // 20 %, due in 30 days: pending
  const b = affiliateOf(merchantId, { days_until_commissions_are_due: 0 }); // due at once
  const usd = a.charge(10_000, 'usd');
  const eur = b.charge(5_000, 'eur');
  await handled(a.attributed(usd), b.attributed(eur), a.attributed(a.charge(2_500, 'usd')));
  // The same charge again (a redelivery, a re-run) counts nothing more.
  await handled(a.attributed(usd), b.attributed(eur));

  let stats = await ofAffiliates(merchantId, [a.id, b.id, randomUUID()]);
  // [unpaid, due, paid, total, gross_revenue, net_revenue]
  expect(figures(stats[a.id]!, 'USD')).toEqual([2_500, 0, 0, 2_500, 12_500, 12_500]);
  expect(figures(stats[b.id]!, 'EUR')).toEqual([1_000, 1_000, 0, 1_000, 5_000, 5_000]);
  expect(Object.values(stats)[2]).toEqual({ currencies: {} });
  const all = await totals(merchantId);
  // One document per merchant: both affiliates added up, currencies sorted by code.
  expect(Object.keys(all.currencies)).toEqual(['EUR', 'USD']);
  expect(figures(all, 'USD')).toEqual([2_500, 0, 0, 2_500, 12_500, 12_500]);
  expect(all.currencies.EUR!.due).toEqual({ cents: 1_000, currency_iso: 'EUR' });

  // Half of the first USD charge refunded, twice: the sale's net and the commission shrink once.
  const refund = { ...usd, amount_refunded: 5_000 };
  await handled(a.refunded(refund));
  await handled(a.refunded(refund));
  stats = await ofAffiliates(merchantId, [a.id]);
  expect(figures(stats[a.id]!, 'USD')).toEqual([1_500, 0, 0, 1_500, 12_500, 7_500]);
  // A full refund voids it: it counts nowhere, its sale's revenue stays (net 0).
  await handled(a.refunded({ ...usd, amount_refunded: 10_000 }));
  expect(figures(await totals(merchantId), 'USD')).toEqual([500, 0, 0, 500, 12_500, 2_500]);
});

it('settles what a dead writer reserved from the records, and counts old records once', async () => {
  const merchantId = randomUUID();
  const a = affiliateOf(merchantId);
  await handled(a.attributed(a.charge(10_000, 'usd')));
  const before = await totals(merchantId);
  expect(figures(before, 'USD')).toEqual([2_000, 0, 0, 2_000, 10_000, 10_000]);

  // A writer reserved two writes and died: one commission written with its mark, one not.
  const commissions = commissionModel(mongo);
  const stored = await commissions.findOne({ merchant_id: merchantId }).lean().exec();
  const written = {
    ...stored!,
    _id: randomUUID(),
    sale_id: randomUUID(),
    amount: 300,
    pending_events: [],
  };
  const tally = new StatsTally(statsModels(mongo), () => new Date(Date.now() - 180_000));
  const reservation = await tally.reserve(
    [written, { ...written, _id: randomUUID() }].map((c) => ({
      ...{ merchantId, affiliateId: a.id, kind: 'c' as const, recordId: c._id },
      ...{ currency: 'USD', delta: [300, 0, 0, 300, 0, 0] },
    })),
  );
  await commissions.collection.insertOne({ ...written, stats_marks: [reservation!.id] } as never);
  // Nothing shows before the sweep settles it, and only the write that landed counts.
  expect(await totals(merchantId)).toEqual(before);
  const marked = { c: commissions, s: saleModel(mongo) };
  expect(await new StatsSweep(tally, marked).run()).toBeGreaterThanOrEqual(2);
  expect(figures(await totals(merchantId), 'USD')).toEqual([2_300, 0, 0, 2_300, 10_000, 10_000]);
  expect(figures((await ofAffiliates(merchantId, [a.id]))[a.id]!, 'USD')).toEqual(
    figures(await totals(merchantId), 'USD'),
  );
  // The writer was only stalled: its late settle, sharing an update with a new reservation,
  // finds its reservation gone and adds nothing; the new reservation is still written.
  const [, fresh] = await Promise.all([
    reservation!.settle(() => true),
    tally.reserve([
      {
        merchantId,
        affiliateId: a.id,
        kind: 'c',
        recordId: randomUUID(),
        currency: 'USD',
        delta: [1, 0, 0, 1, 0, 0],
      },
    ]),
  ]);
  expect(figures(await totals(merchantId), 'USD')).toEqual([2_300, 0, 0, 2_300, 10_000, 10_000]);
  const merchantDoc = await statsModels(mongo).merchant.findById(merchantId).lean().exec();
  expect(Object.keys(merchantDoc!.reserved ?? {})).toEqual([fresh!.id]);
  expect(merchantDoc!.reserved_count).toBe(1);
  await fresh!.settle(() => false);

  // A record written before the stats were kept (no marks) is counted by the backfill, once.
  const old = {
    ...stored!,
    _id: randomUUID(),
    sale_id: randomUUID(),
    amount: 700,
    pending_events: [],
  };
  delete (old as { stats_marks?: string[] }).stats_marks;
  await commissions.collection.insertOne(old as never);
  const backfill = new StatsBackfill(
    new StatsTally(statsModels(mongo)),
    saleModel(mongo),
    commissions,
  );
  expect(await backfill.run()).toBeGreaterThanOrEqual(1);
  expect(await backfill.run()).toBe(0);
  expect(figures(await totals(merchantId), 'USD')).toEqual([3_000, 0, 0, 3_000, 10_000, 10_000]);
});
