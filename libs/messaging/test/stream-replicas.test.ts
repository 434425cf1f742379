/**
 * Streams on a real three-node JetStream cluster (local nats-server processes): with
 * NATS_STREAM_REPLICAS=3 every stream keeps a copy on each node, so losing the node that leads a
 * stream loses none of its messages, and a stream made with one replica is rescaled. With one
 * replica, the same loss takes the stream away: what the setting is for.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { findBinary, startNatsCluster, type NatsCluster } from '@aff/devstack';
import { buildEvent, STREAMS, VISIT_INTAKE } from '@aff/contracts';
import { createLogger } from '@aff/logging';
import {
  EventPublisher,
  KeyedWorkQueue,
  connectNats,
  ensureStreams,
  type NatsConnection,
} from '../src';

const log = createLogger('stream-replicas-test', 'silent');
// Without a local nats-server (a machine that runs the servers in Docker) there is no cluster.
const withCluster = findBinary('nats-server') ? describe : describe.skip;

withCluster('JetStream streams on a three-node cluster', () => {
  let cluster: NatsCluster;
  let nc: NatsConnection;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    cluster = (await startNatsCluster(3))!;
    nc = await connectNats(cluster.urls, 'stream-replicas-test', log);
    // The cluster answers JetStream requests once it has elected its meta leader.
    jsm = await eventually(() => jetstreamManager(nc), 30_000);
  }, 60_000);
  afterAll(async () => {
    await nc?.close();
    await cluster?.stop();
  });

  it('keeps every message of a three-replica stream when the node leading it is lost', async () => {
    await whileClusterSettles(() => ensureStreams(nc, ['affiliate'], { replicas: 3 }));
    const name = STREAMS.affiliate.name;
    const made = await jsm.streams.info(name);
    expect(made.config.num_replicas).toBe(3);
    const publisher = new EventPublisher(nc);
    const published: string[] = [];
    for (let i = 0; i < 40; i++) {
      const event = buildEvent('affiliate.updated', randomUUID(), { id: randomUUID() } as never);
      // A stream just made answers once its replicas have elected a leader ("no responders"
      // before, seen once in CI); a retry is stored once, under the event's message id.
      await whileClusterSettles(() => publisher.publish(event, {}));
      published.push(event.id);
    }
    const replicated = await eventually(async () => {
      const info = await jsm.streams.info(name);
      if ((info.cluster?.replicas ?? []).filter((r) => r.current).length !== 2)
        throw new Error('replicas not current yet');
      return info;
    }, 20_000);
    const leader = replicated.cluster!.leader!;

    await nodeNamed(leader).stop();

    const after = await eventually(async () => {
      const info = await jsm.streams.info(name);
      if (!info.cluster?.leader || info.cluster.leader === leader) throw new Error('no new leader');
      return info;
    }, 30_000);
    expect(after.state.messages).toBe(40);
    const stored: string[] = [];
    for (let seq = after.state.first_seq; seq <= after.state.last_seq; seq++) {
      const message = await jsm.streams.getMessage(name, { seq });
      stored.push((message!.json() as { id: string }).id);
    }
    expect(stored).toEqual(published);
    await nodeNamed(leader).start();
  }, 90_000);

  it('rescales a stream made with one replica, and opens work queues with the same count', async () => {
    await whileClusterSettles(() => ensureStreams(nc, ['tracking']));
    const name = STREAMS.tracking.name;
    expect((await jsm.streams.info(name)).config.num_replicas).toBe(1);

    await whileClusterSettles(() => ensureStreams(nc, ['tracking'], { replicas: 3 }));
    const rescaled = await eventually(async () => {
      const info = await jsm.streams.info(name);
      if ((info.cluster?.replicas ?? []).length !== 2) throw new Error('not rescaled yet');
      return info;
    }, 30_000);
    expect(rescaled.config.num_replicas).toBe(3);

    await whileClusterSettles(() =>
      KeyedWorkQueue.open(
        nc,
        { stream: VISIT_INTAKE.stream, subjectPrefix: VISIT_INTAKE.subjectPrefix },
        { replicas: 3 },
      ),
    );
    expect((await jsm.streams.info(VISIT_INTAKE.stream)).config.num_replicas).toBe(3);
  }, 90_000);

  it('with one replica, losing the node that holds a stream takes the stream away', async () => {
    await whileClusterSettles(() => ensureStreams(nc, ['payout']));
    const name = STREAMS.payout.name;
    const info = await jsm.streams.info(name);
    expect(info.config.num_replicas).toBe(1);
    const holder = info.cluster!.leader!;

    await nodeNamed(holder).stop();
    try {
      // The other nodes know the stream, but none has a copy to serve it from.
      await expect(jsm.streams.info(name)).rejects.toThrow();
    } finally {
      await nodeNamed(holder).start();
    }
  }, 90_000);

  it('refuses more than one replica on a server outside a cluster, for new and existing streams', async () => {
    const single = await connectNats(process.env.NATS_URL!, 'stream-replicas-single', log);
    try {
      await ensureStreams(single, ['affiliate']); // exists with one replica
      await expect(ensureStreams(single, ['affiliate'], { replicas: 3 })).rejects.toThrow(
        /NATS_STREAM_REPLICAS is 3, but NATS server .* is not part of a cluster/,
      );
      const jsmSingle = await jetstreamManager(single);
      expect((await jsmSingle.streams.info(STREAMS.affiliate.name)).config.num_replicas).toBe(1);
      await expect(
        KeyedWorkQueue.open(
          single,
          { stream: VISIT_INTAKE.stream, subjectPrefix: VISIT_INTAKE.subjectPrefix },
          { replicas: 2 },
        ),
      ).rejects.toThrow(/not part of a cluster/);
    } finally {
      await single.close();
    }
  });

  function nodeNamed(name: string) {
    const node = cluster.nodes.find((n) => n.name === name);
    if (!node) throw new Error(`no node ${name}`);
    return node;
  }
});

/**
 * A JetStream request that creates or changes a stream, retried while the cluster settles: the
 * test before may just have restarted a node, and until the meta group has its leader again
 * (seconds on a busy machine) such a request times out. Creating or updating is idempotent.
 */
function whileClusterSettles<T>(attempt: () => Promise<T>): Promise<T> {
  return eventually(attempt, 30_000);
}

async function eventually<T>(attempt: () => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await delay(250);
    }
  }
}
