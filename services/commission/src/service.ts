/** Composition root of the commission service. */
import { atMost, startHealthServer } from '@aff/api';
import { STREAMS } from '@aff/contracts';
import type { Logger } from '@aff/logging';
import {
  EventPublisher,
  OutboxRelay,
  connectNats,
  natsReachable,
  ensureStreams,
  serveRpc,
  startConsumer,
} from '@aff/messaging';
import {
  MongoPendingEventStore,
  NewestIndex,
  TenantRepository,
  connectMongo,
  mongoReachable,
} from '@aff/mongo';
import type { CommissionConfig } from './config';
import { CHARGE_SUBJECTS, chargeOrderingKey, chargesHandler } from './consumers/charges.consumer';
import { PAYOUT_SUBJECTS, payoutsHandler } from './consumers/payouts.consumer';
import { commissionModel } from './data/commission.schema';
import { saleModel } from './data/sale.schema';
import { ChargeUseCases } from './domain/charges';
import { CommissionChanges } from './domain/commission-changes';
import { CommissionQueries } from './domain/queries';
import { SettlementUseCases } from './domain/settlement';
import { commissionRpc } from './rpc/commission.rpc';

export async function startCommissionService(config: CommissionConfig, log: Logger) {
  const mongo = await connectMongo(config.MONGO_URL, config.MONGO_DB);
  const nc = await connectNats(config.NATS_URL, 'commission', log);
  await ensureStreams(nc);

  const models = { sale: saleModel(mongo), commission: commissionModel(mongo) };
  await Promise.all(Object.values(models).map((m) => m.init()));
  const sales = new TenantRepository(models.sale);
  const commissions = new TenantRepository(models.commission);
  const relay = new OutboxRelay(
    new EventPublisher(nc),
    new MongoPendingEventStore(Object.values(models)),
    log,
  );
  relay.start(config.OUTBOX_SWEEP_MS);
  const newest = NewestIndex.of(models.commission, 'evt.commission.created');
  await newest.load();
  const newestFollowers = newest.follow(nc, log);

  const charges = new ChargeUseCases(sales, commissions, relay, newest);
  const settlement = new SettlementUseCases(commissions, sales, relay);
  const consumers = [
    await startConsumer(nc, {
      stream: STREAMS.tracking.name,
      durable: 'commission-charges',
      filterSubjects: CHARGE_SUBJECTS,
      orderingKey: chargeOrderingKey,
      // Refunds waiting for their sale stay unacknowledged meanwhile; they must not hold
      // every slot of the durable and stall the charges they wait for.
      maxAckPending: 1000,
      handle: chargesHandler(charges),
      log,
    }),
    await startConsumer(nc, {
      stream: STREAMS.payout.name,
      durable: 'commission-payouts',
      filterSubjects: PAYOUT_SUBJECTS,
      // Marking paid is a conditional update, so events of different payouts may run at once.
      orderingKey: (event) => String((event.data as { id?: unknown }).id ?? event.id),
      handle: payoutsHandler(settlement),
      log,
    }),
  ];

  let sweeping = false;
  const dueTimer = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    settlement
      .moveDue(models.commission)
      .catch((err: unknown) => log.warn({ err }, 'due sweep failed'))
      .finally(() => {
        sweeping = false;
      });
  }, config.COMMISSION_DUE_SWEEP_MS);
  dueTimer.unref();

  const subscription = serveRpc(
    nc,
    'commission',
    commissionRpc(
      new CommissionQueries(commissions, sales, newest),
      new CommissionChanges(commissions, sales, settlement),
    ),
    log,
  );
  const health = await startHealthServer(config.HEALTH_PORT, {
    mongo: () => mongoReachable(mongo),
    nats: () => natsReachable(nc),
  });
  log.info({ healthPort: health?.port }, 'commission service ready');

  return {
    async stop() {
      clearInterval(dueTimer);
      subscription.unsubscribe();
      for (const follower of newestFollowers) follower.unsubscribe();
      // Bounded steps: a server that is gone must not stall shutdown past its deadline.
      await atMost(Promise.all(consumers.map((consumer) => consumer.stop())), 1_500);
      await atMost(relay.stop(), 1_000);
      await atMost(nc.drain(), 1_000);
      await atMost(nc.close(), 200);
      await health?.close();
      await atMost(mongo.close(), 500);
    },
  };
}
