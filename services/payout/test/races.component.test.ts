/**
 * The payout guards under races, on the real MongoDB-protocol server (FerretDB in tests, where
 * conditional updates are not isolated): generation runs racing each other and payments, and
 * completions run twice. Whatever interleaving happens, a commission ends in exactly one
 * payout, every payout is paid once, and each event is published once.
 */
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import type { EventEnvelope } from '@aff/contracts';
import { loadConfig } from '@aff/config';
import { createLogger } from '@aff/logging';
import {
  connectNats,
  internalCallContext,
  type NatsConnection,
  type PendingEvent,
} from '@aff/messaging';
import { connectMongo } from '@aff/mongo';
import { configSchema } from '../src/config';
import { buildPayout, payoutModels } from '../src/service';

let mongo: Connection;
let nc: NatsConnection;
const published: EventEnvelope[] = [];
const queued: string[] = [];
let wiring: ReturnType<typeof buildPayout>;

beforeAll(async () => {
  const config = loadConfig(configSchema, {
    MONGO_URL: process.env.MONGO_URL,
    NATS_URL: process.env.NATS_URL,
    MONGO_DB: `payout_races_${Date.now()}`,
  });
  const log = createLogger('payout', 'silent');
  mongo = await connectMongo(config.MONGO_URL, config.MONGO_DB);
  // The service's own wiring; nothing is started (no consumer, worker or timer).
  nc = await connectNats(config.NATS_URL, 'payout-races', log);
  const models = payoutModels(mongo);
  await Promise.all(Object.values(models).map((model) => model.init()));
  const relay = {
    relay(pending: PendingEvent[]) {
      for (const item of pending) {
        published.push(item.event);
        void item.markPublished();
      }
    },
  };
  wiring = buildPayout({ config, log, nc, models, relay });
  // Payments are completed by the test (twice, at once), not by the worker's queue.
  jest.spyOn(wiring.worker, 'enqueue').mockImplementation((_merchant, id) => {
    queued.push(id);
  });
});
afterAll(async () => {
  await nc.close();
  await mongo.dropDatabase().catch(() => undefined);
  await mongo.close();
});

async function seedDue(merchantId: string, count: number, amount: number) {
  const now = new Date();
  for (let i = 0; i < count; i++) {
    await wiring.commissions.save({
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
  const ctx = internalCallContext(merchantId, {});
  const open = await wiring.payouts.page(merchantId, { states: ['pending', 'due'] }, 0, 100);
  await Promise.allSettled(
    open.items.flatMap((p) => [
      wiring.pay.pay(ctx, p._id, 'key-1'),
      wiring.pay.pay(ctx, p._id, 'key-2'),
    ]),
  );
}

async function completeQueued(merchantId: string) {
  const ids = queued.splice(0);
  // Twice each, at once: a restarted process and a replica taking over the same payment.
  await Promise.all(
    ids.flatMap((id) => [
      wiring.complete.complete(merchantId, id),
      wiring.complete.complete(merchantId, id),
    ]),
  );
}

it('puts every commission in exactly one payout and pays each payout once', async () => {
  const merchantId = randomUUID();
  const ctx = internalCallContext(merchantId, {});
  const rounds = 8;
  const perRound = 4;
  for (let round = 0; round < rounds; round++) {
    await seedDue(merchantId, perRound, 100);
    await Promise.all([
      wiring.generate.run(ctx, {}),
      wiring.generate.run(ctx, {}),
      payEveryOpenPayout(merchantId),
      wiring.generate.run(ctx, {}),
    ]);
    await completeQueued(merchantId);
  }
  // Settle: whatever a race left for later is bundled and paid now.
  for (let settle = 0; settle < 3; settle++) {
    await wiring.generate.run(ctx, {});
    await payEveryOpenPayout(merchantId);
    await completeQueued(merchantId);
  }

  const all = await wiring.payouts.page(merchantId, {}, 0, 100);
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
