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
 * How many copies of each stream (and, by inheritance, of each durable consumer's state) the
 * JetStream cluster keeps. 1 on a single server; 3 on a three-node cluster, so a node lost
 * keeps every message not yet handled. A stream made with another count is rescaled to it.
 */
export interface StreamPlacement {
  replicas: number;
}

export const SINGLE_SERVER: StreamPlacement = { replicas: 1 };

/**
 * Refuses more than one replica on a server that is not part of a cluster. JetStream refuses it
 * when a stream is added, but accepts it silently when an existing stream is updated, and then
 * reports copies it does not keep.
 */
export function checkPlacement(nc: NatsConnection, placement: StreamPlacement): void {
  if (placement.replicas > 1 && !nc.info?.cluster) {
    throw new Error(
      `NATS_STREAM_REPLICAS is ${placement.replicas}, but NATS server ${nc.info?.server_name ?? ''} is not part of a cluster: set it to 1, or to at most the cluster's size`,
    );
  }
}

/**
 * Adds the stream unless it exists, and returns the existing one's info (undefined when added).
 * Another process adding it at the same moment is not an error.
 */
async function addStreamIfMissing(
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

/**
 * Adds the stream, or brings an existing one to `config`'s subjects (when it lacks one) and
 * replica count. Rescaling is JetStream's own: it copies the stream to the new peers while the
 * stream keeps serving.
 */
export async function reconcileStream(
  jsm: JetStreamManager,
  config: Partial<StreamConfig> & { name: string; subjects: string[]; num_replicas: number },
): Promise<void> {
  const existing = await addStreamIfMissing(jsm, config);
  if (!existing) return;
  const lacksSubject = config.subjects.some((s) => !existing.config.subjects?.includes(s));
  if (!lacksSubject && existing.config.num_replicas === config.num_replicas) return;
  await jsm.streams.update(config.name, {
    ...existing.config,
    subjects: config.subjects,
    num_replicas: config.num_replicas,
  });
}

export async function ensureStreams(
  nc: NatsConnection,
  names: (keyof typeof STREAMS)[] = Object.keys(STREAMS) as (keyof typeof STREAMS)[],
  placement: StreamPlacement = SINGLE_SERVER,
): Promise<void> {
  checkPlacement(nc, placement);
  const jsm = await jetstreamManager(nc);
  for (const key of names) {
    const { name, aggregates } = STREAMS[key];
    await reconcileStream(jsm, {
      name,
      subjects: streamSubjects(aggregates),
      duplicate_window: DUPLICATE_WINDOW_NS,
      max_age: MAX_AGE_NS,
      num_replicas: placement.replicas,
    });
  }
}
