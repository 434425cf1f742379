/** Creates or updates the JetStream streams; every service ensures the streams it reads or writes. */
import {
  jetstreamManager,
  type JetStreamManager,
  type StreamConfig,
  type StreamInfo,
} from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { STREAMS, streamSubjects } from '@aff/contracts';

export const DUPLICATE_WINDOW_NS = 10 * 60 * 1e9; // a relay retrying within 10 minutes is dropped by the stream
export const MAX_AGE_NS = 30 * 24 * 3600 * 1e9;

/**
 * Adds the stream unless it exists, and returns the existing one's info (undefined when added).
 * Another process adding it at the same moment is not an error.
 */
export async function addStreamIfMissing(
  jsm: JetStreamManager,
  config: Partial<StreamConfig> & { name: string },
): Promise<StreamInfo | undefined> {
  const existing = await jsm.streams.info(config.name).catch(() => undefined);
  if (existing) return existing;
  await jsm.streams.add(config).catch(async (error: unknown) => {
    if (!(await jsm.streams.info(config.name).catch(() => undefined))) throw error;
  });
  return undefined;
}

export async function ensureStreams(
  nc: NatsConnection,
  names: (keyof typeof STREAMS)[] = Object.keys(STREAMS) as (keyof typeof STREAMS)[],
): Promise<void> {
  const jsm = await jetstreamManager(nc);
  for (const key of names) {
    const { name, aggregates } = STREAMS[key];
    const subjects = streamSubjects(aggregates);
    const existing = await addStreamIfMissing(jsm, {
      name,
      subjects,
      duplicate_window: DUPLICATE_WINDOW_NS,
      max_age: MAX_AGE_NS,
    });
    if (existing && subjects.some((s) => !existing.config.subjects?.includes(s))) {
      await jsm.streams.update(name, { ...existing.config, subjects });
    }
  }
}
