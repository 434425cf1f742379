/** Composition root: connections, repositories, use cases and entry points; start and stop. */
import type { Connection } from 'mongoose';
import { atMost, startHealthServer, type HealthServer } from '@aff/api';
import type { Logger } from '@aff/logging';
import {
  connectNats,
  natsReachable,
  ensureStreams,
  serveRpc,
  type NatsConnection,
  type Subscription,
} from '@aff/messaging';
import { TenantRepository, connectMongo, mongoReachable } from '@aff/mongo';
import type { WebhookConfig } from './config';
import { startEventConsumers } from './consumers/domain-events.consumer';
import { startDuePoller } from './consumers/due-deliveries.poller';
import { AttemptRepository } from './data/attempt.repository';
import { attemptModel } from './data/attempt.schema';
import { DeliveryClaims } from './data/delivery-claims';
import { DeliveriesHandoff } from './consumers/deliveries-handoff';
import { DeliveryRepository } from './data/delivery.repository';
import { deliveryModel } from './data/delivery.schema';
import { EndpointDirectory } from './data/endpoint-directory';
import { endpointModel } from './data/endpoint.schema';
import { ScheduleRepository } from './data/schedule.repository';
import { scheduleModel } from './data/schedule.schema';
import { DeliveryAttempts } from './domain/attempts';
import { DeliveryUseCases } from './domain/deliveries';
import { endpointBodySchemas } from './domain/endpoint-rules';
import { EndpointUseCases } from './domain/endpoints';
import { FanOut } from './domain/fan-out';
import { DeliveryDispatcher } from './outbound/dispatcher';
import { HttpWebhookSender } from './outbound/http-sender';
import { deliveryRpc } from './rpc/delivery.rpc';
import { endpointRpc } from './rpc/endpoint.rpc';

export interface RunningService {
  healthPort: number | undefined;
  stop(): Promise<void>;
}

/** A claim outlives the request's deadline by this much before another sender may take over. */
const LEASE_MARGIN_MS = 5000;
/** How long an event's ack waits for its fresh deliveries' first answers before scheduling them. */
const FIRST_ATTEMPT_WAIT_MS = 2000;

export async function startWebhookService(
  config: WebhookConfig,
  log: Logger,
): Promise<RunningService> {
  const mongo: Connection = await connectMongo(config.MONGO_URL, config.MONGO_DB);
  const nc: NatsConnection = await connectNats(config.NATS_URL, 'webhook', log);
  // Every stream, so the consumers exist before the services that publish to them first start.
  await ensureStreams(nc);

  const models = {
    endpoint: endpointModel(mongo),
    delivery: deliveryModel(mongo),
    attempt: attemptModel(mongo),
    schedule: scheduleModel(mongo),
  };
  await Promise.all(Object.values(models).map((model) => model.init()));
  const endpoints = new TenantRepository(models.endpoint);
  const deliveries = new DeliveryRepository(models.delivery);
  const attemptLog = new AttemptRepository(models.attempt);
  const schedule = new ScheduleRepository(models.schedule);

  const sender = new HttpWebhookSender({
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
  });
  const leaseMs = config.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS;
  const directory = new EndpointDirectory(endpoints, nc);
  const directoryFollower = directory.follow(nc);
  const attempts = new DeliveryAttempts(
    new DeliveryClaims(deliveries, attemptLog, schedule),
    directory,
    sender,
    { timeScale: config.WEBHOOK_TIME_SCALE, leaseMs },
  );
  const dispatcher = new DeliveryDispatcher(
    (due) => attempts.attempt(due),
    { concurrency: config.WEBHOOK_CONCURRENCY, perEndpoint: config.WEBHOOK_ENDPOINT_CONCURRENCY },
    log,
  );
  const endpointUseCases = new EndpointUseCases(
    endpoints,
    deliveries,
    attemptLog,
    schedule,
    endpointBodySchemas(config.WEBHOOK_ALLOW_PRIVATE_TARGETS),
    directory,
  );
  const deliveryUseCases = new DeliveryUseCases(
    deliveries,
    attemptLog,
    schedule,
    endpointUseCases,
    dispatcher,
  );

  const subscription: Subscription = serveRpc(
    nc,
    'webhook',
    { ...endpointRpc(endpointUseCases), ...deliveryRpc(deliveryUseCases) },
    log,
  );
  const consumers = await startEventConsumers(
    nc,
    new FanOut(directory, deliveries, schedule, leaseMs),
    new DeliveriesHandoff(dispatcher, schedule, FIRST_ATTEMPT_WAIT_MS),
    log,
  );
  const poller = startDuePoller(schedule, dispatcher, config.WEBHOOK_POLL_MS, log);

  const health: HealthServer | undefined = await startHealthServer(config.HEALTH_PORT, {
    mongo: () => mongoReachable(mongo),
    nats: () => natsReachable(nc),
  });
  log.info(
    {
      healthPort: health?.port,
      allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      timeScale: config.WEBHOOK_TIME_SCALE,
    },
    'webhook service ready',
  );

  return {
    healthPort: health?.port,
    async stop() {
      subscription.unsubscribe();
      directoryFollower.unsubscribe();
      // Bounded steps: a server that is gone must not stall shutdown past its deadline.
      await atMost(Promise.all(consumers.map((consumer) => consumer.stop())), 1_500);
      await atMost(poller.stop(), 1_000);
      await atMost(dispatcher.stop(), 1_000);
      sender.close();
      await atMost(nc.drain(), 1_000);
      await atMost(nc.close(), 200);
      await health?.close();
      await atMost(mongo.close(), 500);
    },
  };
}
