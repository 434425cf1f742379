/**
 * Keeps an in-memory read model current from domain events on plain NATS subscriptions. Every
 * replica sees every event this way (a durable consumer hands each event to one replica only);
 * plain subscriptions miss what is published while disconnected, so `reload` runs after each
 * reconnect.
 */
import type { EventEnvelope } from '@aff/contracts';
import type { Logger } from '@aff/logging';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { decodeJson } from './json';

export interface FollowOptions {
  subjects: string[];
  apply: (event: EventEnvelope) => void;
  reload: () => Promise<void>;
  log: Logger;
}

export function followEvents(nc: NatsConnection, opts: FollowOptions): Subscription[] {
  const subscriptions = opts.subjects.map((subject) =>
    nc.subscribe(subject, {
      callback: (error, msg) => {
        if (error) return;
        try {
          opts.apply(decodeJson(msg.data) as EventEnvelope);
        } catch (err) {
          opts.log.warn({ err, subject }, 'event not applied to an in-memory read model');
        }
      },
    }),
  );
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'reconnect')
        await opts
          .reload()
          .catch((err: unknown) => opts.log.warn({ err }, 'in-memory read model reload failed'));
    }
  })();
  return subscriptions;
}
