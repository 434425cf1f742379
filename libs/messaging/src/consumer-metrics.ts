/**
 * JetStream consumer lag and redeliveries per durable, read from consumer info when metrics are
 * collected (a scrape or an OTLP export), so the consumers themselves carry no metric code. A
 * service reports the durables named after it (`<service>-...`), so each series has one owner.
 */
import { metrics } from '@opentelemetry/api';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { STREAMS, VISIT_INTAKE } from '@aff/contracts';

interface ConsumerFigures {
  stream: string;
  durable: string;
  pending: number;
  ackPending: number;
  redelivered: number;
}

export function observeConsumers(nc: NatsConnection, service: string): void {
  const meter = metrics.getMeter('affiliate-platform');
  const lag = meter.createObservableGauge('messaging.consumer.lag', {
    description: 'Messages in the stream not yet delivered to this durable consumer',
    unit: '{message}',
  });
  const ackPending = meter.createObservableGauge('messaging.consumer.ack_pending', {
    description: 'Messages delivered to this durable consumer and not yet acknowledged',
    unit: '{message}',
  });
  const redelivered = meter.createObservableGauge('messaging.consumer.redelivered', {
    description: 'Messages delivered more than once and not yet acknowledged',
    unit: '{message}',
  });
  meter.addBatchObservableCallback(
    async (result) => {
      for (const figures of await readFigures(nc, `${service}-`)) {
        const attrs = {
          'messaging.system': 'nats',
          'messaging.destination.name': figures.stream,
          'messaging.consumer.group.name': figures.durable,
        };
        result.observe(lag, figures.pending, attrs);
        result.observe(ackPending, figures.ackPending, attrs);
        result.observe(redelivered, figures.redelivered, attrs);
      }
    },
    [lag, ackPending, redelivered],
  );
}

async function readFigures(nc: NatsConnection, prefix: string): Promise<ConsumerFigures[]> {
  if (nc.isClosed()) return [];
  const found: ConsumerFigures[] = [];
  try {
    const jsm = await jetstreamManager(nc, { timeout: 1_000 });
    // Tracking's visit intake last: its stream exists only once a tracking replica has started,
    // and a stream that is not there ends the reading.
    for (const stream of [...Object.values(STREAMS).map((s) => s.name), VISIT_INTAKE.stream]) {
      for await (const info of jsm.consumers.list(stream)) {
        const durable = info.config.durable_name;
        if (!durable?.startsWith(prefix)) continue;
        found.push({
          stream,
          durable,
          pending: info.num_pending,
          ackPending: info.num_ack_pending,
          redelivered: info.num_redelivered,
        });
      }
    }
  } catch {
    // NATS unreachable or a stream not there yet: report what was read; readiness says the rest.
  }
  return found;
}
