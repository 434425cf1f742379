/** Wiring of the webhook service: its models and object graph; the kernel runs it. */
import { defineService, type ServiceDeps } from '@aff/kernel';
import type { Connection } from 'mongoose';
import { configSchema, loadWebhookConfig, type WebhookConfig } from './config';
import { startEventConsumers } from './consumers/domain-events.consumer';
import { dueDeliveriesJob } from './consumers/due-deliveries.poller';
import { logPruneJob } from './consumers/log-prune.job';
import { AttemptRepository } from './data/attempt.repository';
import { attemptModel } from './data/attempt.schema';
import { DeliveriesHandoff } from './consumers/deliveries-handoff';
import { DeliveryRepository } from './data/delivery.repository';
import { deliveryModel } from './data/delivery.schema';
import { EndpointDirectory } from './data/endpoint-directory';
import { EndpointRepository } from './data/endpoint.repository';
import { endpointModel } from './data/endpoint.schema';
import { LogPruner } from './data/log-pruner';
import { ScheduleRepository } from './data/schedule.repository';
import { scheduleModel } from './data/schedule.schema';
import { DeliveryAttempts } from './domain/attempts';
import { DeliveryClaims } from './domain/delivery-claims';
import { DeliveryUseCases } from './domain/deliveries';
import { EndpointHealth } from './domain/endpoint-health';
import { EndpointUseCases } from './domain/endpoints';
import { FanOut } from './domain/fan-out';
import { DeliveryDispatcher } from './outbound/dispatcher';
import { HttpWebhookSender } from './outbound/http-sender';
import { webhookRpcTable } from './rpc/rpc-table';

/** A claim outlives the request's deadline by this much before another sender may take over. */
const LEASE_MARGIN_MS = 5000;

export const webhookModels = (mongo: Connection) => ({
  endpoint: endpointModel(mongo),
  delivery: deliveryModel(mongo),
  attempt: attemptModel(mongo),
  schedule: scheduleModel(mongo),
});
type WebhookModels = ReturnType<typeof webhookModels>;

export function buildWebhook(deps: ServiceDeps<WebhookConfig, WebhookModels>) {
  const { config, log, models, nc, relay } = deps;
  // The endpoints' store relays the events it writes (an automatic disabling) itself.
  const endpoints = new EndpointRepository(models.endpoint, relay);
  const deliveries = new DeliveryRepository(models.delivery);
  // Read only: the log's lines stored before attempts were embedded in their delivery.
  const attemptLog = new AttemptRepository(models.attempt);
  const schedule = new ScheduleRepository(models.schedule);

  const sender = new HttpWebhookSender({
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
  });
  const leaseMs = config.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS;
  const scaled = (ms: number) => ms * config.WEBHOOK_TIME_SCALE;
  const directory = new EndpointDirectory(endpoints, nc);
  const endpointHealth = new EndpointHealth(endpoints, directory, {
    disableAfterMs: scaled(config.WEBHOOK_DISABLE_AFTER_MS),
    disableAfterLabelMs: config.WEBHOOK_DISABLE_AFTER_MS,
  });
  const claims = new DeliveryClaims(deliveries, schedule);
  const attempts = new DeliveryAttempts(
    claims,
    directory,
    sender,
    { timeScale: config.WEBHOOK_TIME_SCALE, leaseMs },
    endpointHealth,
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
    config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    directory,
    scaled(config.WEBHOOK_SECRET_OVERLAP_MS),
  );
  const deliveryUseCases = new DeliveryUseCases(
    deliveries,
    attemptLog,
    schedule,
    endpointUseCases,
    dispatcher,
  );

  return {
    follow: () => [directory.follow(nc)],
    consumers: [
      () =>
        startEventConsumers(
          nc,
          new FanOut(directory, deliveries, schedule, leaseMs),
          new DeliveriesHandoff(dispatcher, claims, config.WEBHOOK_FIRST_ANSWER_WAIT_MS),
          log,
          // Most merchants' events (every visit's referral.created) need no delivery: acked
          // unread once this replica knows the merchant has no endpoint.
          (merchantId) => directory.knownWithout(merchantId),
        ),
    ],
    workers: [dispatcher],
    intervals: [
      dueDeliveriesJob(schedule, dispatcher, config.WEBHOOK_POLL_MS),
      logPruneJob(
        new LogPruner(models.endpoint, models.delivery, models.attempt),
        scaled(config.WEBHOOK_LOG_RETENTION_MS),
        config.WEBHOOK_PRUNE_INTERVAL_MS,
        log,
      ),
    ],
    rpc: webhookRpcTable({ endpoints: endpointUseCases, deliveries: deliveryUseCases }),
    close: () => sender.close(),
    readyFields: {
      allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      timeScale: config.WEBHOOK_TIME_SCALE,
    },
  };
}

export const webhookService = defineService({
  name: 'webhook',
  configSchema,
  loadConfig: loadWebhookConfig,
  models: webhookModels,
  // `webhook_endpoint.*` events are written with the endpoint and relayed from there.
  outbox: (models) => [models.endpoint],
  build: buildWebhook,
});
