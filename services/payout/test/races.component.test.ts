/**
 * The payout guards under races, on the real MongoDB-protocol server (FerretDB in tests, where
 * conditional updates are not isolated): generation runs racing each other and payments, and
 * completions run twice. Whatever interleaving happens, a commission ends in exactly one
 * payout, every payout is paid once, and each event is published once.
 */
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import type { EventEnvelope } from '@aff/contracts';
import { connectMongo } from '@aff/mongo';
import type { PendingEvent } from '@aff/messaging';
import { ClaimRepository } from '../src/data/claim.repository';
import { claimModel } from '../src/data/claim.schema';
import { CommissionRepository } from '../src/data/commission.repository';
import { commissionModel } from '../src/data/commission.schema';
import { PaymentStepRepository } from '../src/data/payment-step.repository';
import { paymentStepModel } from '../src/data/payment-step.schema';
import { PayoutEventRepository } from '../src/data/payout-event.repository';
import { payoutEventModel } from '../src/data/payout-event.schema';
import { PayoutRepository } from '../src/data/payout.repository';
import { payoutModel } from '../src/data/payout.schema';
import { SnapshotRepository } from '../src/data/snapshot.repository';
import { affiliateSnapshotModel, campaignSnapshotModel } from '../src/data/snapshot.schema';
import { CompletePayment } from '../src/domain/complete-payment';
import { GeneratePayouts } from '../src/domain/generate-payouts';
import { PayPayout } from '../src/domain/pay-payout';
import { PayoutPresenter } from '../src/domain/payout-presenter';
import { PayoutRefresher } from '../src/domain/payout-refresher';
import { RecordPayment } from '../src/domain/record-payment';

let mongo: Connection;
const published: EventEnvelope[] = [];
const queued: string[] = [];
let commissions: CommissionRepository;
let payouts: PayoutRepository;
let generate: GeneratePayouts;
let pay: PayPayout;
let complete: CompletePayment;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `payout_races_${Date.now()}`);
  const models = {
    payout: payoutModel(mongo),
    claim: claimModel(mongo),
    step: paymentStepModel(mongo),
    event: payoutEventModel(mongo),
    commission: commissionModel(mongo),
    affiliate: affiliateSnapshotModel(mongo),
    campaign: campaignSnapshotModel(mongo),
  };
  await Promise.all(Object.values(models).map((model) => model.init()));
  payouts = new PayoutRepository(models.payout);
  commissions = new CommissionRepository(models.commission);
  const claims = new ClaimRepository(models.claim);
  const steps = new PaymentStepRepository(models.step);
  const affiliates = new SnapshotRepository(models.affiliate);
  const campaigns = new SnapshotRepository(models.campaign);
  const presenter = new PayoutPresenter(commissions, affiliates, campaigns);
  const relay = {
    relay(pending: PendingEvent[]) {
      for (const item of pending) {
        published.push(item.event);
        void item.markPublished();
      }
    },
  };
  const refresher = new PayoutRefresher(
    payouts,
    claims,
    steps,
    commissions,
    affiliates,
    campaigns,
    presenter,
    new PayoutEventRepository(models.event),
    relay,
  );
  const recorder = new RecordPayment(claims, steps, commissions);
  generate = new GeneratePayouts(payouts, commissions, claims, steps, refresher, presenter);
  pay = new PayPayout(payouts, steps, recorder, refresher, presenter, {
    enqueue: (_merchant, id) => queued.push(id),
  });
  complete = new CompletePayment(steps, recorder, refresher);
});
afterAll(async () => {
  await mongo.dropDatabase().catch(() => undefined);
  await mongo.close();
});

async function seedDue(merchantId: string, count: number, amount: number) {
  const now = new Date();
  for (let i = 0; i < count; i++) {
    await commissions.save({
      _id: randomUUID(),
      merchant_id: merchantId,
      affiliate_id: 'affiliate-1',
      campaign_id: null,
      amount,
      currency: 'USD',
      state: 'due',
      processor_account_id: null,
      due_at: now,
      paid_at: null,
      voided_at: null,
      created_at: now,
      updated_at: now,
    });
  }
}

async function payEveryOpenPayout(merchantId: string) {
  const ctx = { merchantId, events: {} };
  const open = await payouts.page(merchantId, { states: ['pending', 'due'] }, 0, 100);
  await Promise.allSettled(
    open.items.flatMap((p) => [pay.pay(ctx, p._id, 'key-1'), pay.pay(ctx, p._id, 'key-2')]),
  );
}

async function completeQueued(merchantId: string) {
  const ids = queued.splice(0);
  // Twice each, at once: a restarted process and a replica taking over the same payment.
  await Promise.all(
    ids.flatMap((id) => [complete.complete(merchantId, id), complete.complete(merchantId, id)]),
  );
}

it('puts every commission in exactly one payout and pays each payout once', async () => {
  const merchantId = randomUUID();
  const ctx = { merchantId, events: {} };
  const rounds = 8;
  const perRound = 4;
  for (let round = 0; round < rounds; round++) {
    await seedDue(merchantId, perRound, 100);
    await Promise.all([
      generate.run(ctx, {}),
      generate.run(ctx, {}),
      payEveryOpenPayout(merchantId),
      generate.run(ctx, {}),
    ]);
    await completeQueued(merchantId);
  }
  // Settle: whatever a race left for later is bundled and paid now.
  for (let settle = 0; settle < 3; settle++) {
    await generate.run(ctx, {});
    await payEveryOpenPayout(merchantId);
    await completeQueued(merchantId);
  }

  const all = await payouts.page(merchantId, {}, 0, 100);
  const holders = new Map<string, string[]>();
  for (const payout of all.items) {
    expect(payout.state).toBe('paid');
    for (const id of payout.commission_ids)
      holders.set(id, [...(holders.get(id) ?? []), payout._id]);
  }
  expect(holders.size).toBe(rounds * perRound);
  for (const owners of holders.values()) expect(owners).toHaveLength(1);
  expect(all.items.reduce((sum, p) => sum + p.amount, 0)).toBe(rounds * perRound * 100);

  const ofMerchant = published.filter((e) => e.merchant_id === merchantId);
  expect(new Set(ofMerchant.map((e) => e.id)).size).toBe(ofMerchant.length);
  for (const payout of all.items) {
    const types = ofMerchant
      .filter((e) => (e.data as { id: string }).id === payout._id)
      .map((e) => e.type);
    expect(types.filter((t) => t === 'payout.created')).toHaveLength(1);
    expect(types.filter((t) => t === 'payout.paid')).toHaveLength(1);
    expect(types).toContain('payout.updated');
  }
});
