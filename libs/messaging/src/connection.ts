/** NATS connection with endless reconnects: a broker restart must not kill a service. */
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Logger } from '@aff/logging';
import { observeConsumers } from './consumer-metrics';

/**
 * `url` may list several servers, comma-separated (seeds of a cluster); once connected, the
 * client also learns the other members from the server and fails over to them.
 */
export async function connectNats(url: string, name: string, log: Logger): Promise<NatsConnection> {
  const nc = await connect({
    servers: url.split(',').map((server) => server.trim()),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    // Otherwise every request (each JetStream publish) builds an Error up front for a stack it
    // would show on failure: about 2% of a consumer's CPU in a drain. Failures still say what.
    noAsyncTraces: true,
  });
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect') {
        log.warn({ nats: status.type }, 'nats connection status changed');
      }
    }
  })();
  // Lag and redeliveries of this service's durables, read from the server at collection time.
  observeConsumers(nc, name);
  return nc;
}
