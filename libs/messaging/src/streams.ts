/** Creates or updates the JetStream streams; every service ensures the streams it reads or writes. */
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { STREAMS, streamSubjects } from '@aff/contracts';

const DUPLICATE_WINDOW_NS = 10 * 60 * 1e9; // a relay retrying within 10 minutes is dropped by the stream
const MAX_AGE_NS = 30 * 24 * 3600 * 1e9;

export async function ensureStreams(
  nc: NatsConnection,
  names: (keyof typeof STREAMS)[] = Object.keys(STREAMS) as (keyof typeof STREAMS)[],
): Promise<void> {
  const jsm = await jetstreamManager(nc);
  for (const key of names) {
    const { name, aggregates } = STREAMS[key];
    const subjects = streamSubjects(aggregates);
    const existing = await jsm.streams.info(name).catch(() => undefined);
    if (!existing) {
      await jsm.streams
        .add({ name, subjects, duplicate_window: DUPLICATE_WINDOW_NS, max_age: MAX_AGE_NS })
        .catch(async (error: unknown) => {
          // Another replica may have created it between our look-up and add.
          if (!(await jsm.streams.info(name).catch(() => undefined))) throw error;
        });
    } else if (subjects.some((s) => !existing.config.subjects?.includes(s))) {
      await jsm.streams.update(name, { ...existing.config, subjects });
    }
  }
}
