/**
 * A JetStream cluster of local nats-server processes on free ports, for tests of what a cluster
 * adds: replicated streams that outlive a node. Each node keeps its store in its own directory,
 * so a node stopped and started again rejoins with what it had, as a restarted pod does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findBinary } from './binaries';
import { freePort } from './free-port';
import { spawnManaged, type ManagedProcess } from './managed-process';
import { RingBuffer } from './ring-buffer';
import { waitForPort } from './wait-for-port';

const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 30_000;

export interface ClusterNode {
  name: string;
  url: string;
  /** Stops the node (SIGKILL by default: a node lost, not shut down). */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same ports and store. */
  start(): Promise<void>;
}

export interface NatsCluster {
  nodes: ClusterNode[];
  /** Every node's client URL, comma-separated, as NATS_URL lists servers. */
  urls: string;
  stop(): Promise<void>;
}

/** Starts `size` clustered nodes; undefined when no local nats-server is installed. */
export async function startNatsCluster(size = 3): Promise<NatsCluster | undefined> {
  const binary = findBinary('nats-server');
  if (!binary) return undefined;
  const root = mkdtempSync(join(tmpdir(), 'nats-cluster-'));
  const ports = await Promise.all(
    Array.from({ length: size }, async () => ({
      client: await freePort(),
      route: await freePort(),
    })),
  );
  const routes = ports.map((p) => `nats://${HOST}:${p.route}`).join(',');
  const nodes = ports.map(({ client, route }, i) => {
    const name = `n${i + 1}`;
    const args = [
      '-js',
      '-a',
      HOST,
      '-p',
      String(client),
      '-sd',
      join(root, name),
      '--server_name',
      name,
      '--cluster_name',
      'test-cluster',
      '--cluster',
      `nats://${HOST}:${route}`,
      '--routes',
      routes,
    ];
    let proc: ManagedProcess | undefined;
    const output = new RingBuffer<string>(30);
    const node: ClusterNode = {
      name,
      url: `nats://${HOST}:${client}`,
      async stop(signal: NodeJS.Signals = 'SIGKILL') {
        await proc?.stop(signal);
        proc = undefined;
      },
      async start() {
        if (proc) return;
        proc = spawnManaged(`nats-${name}`, binary, args, { onLine: (l) => output.push(l) });
        await waitForPort(client, HOST, READY_TIMEOUT_MS).catch((error: unknown) => {
          throw new Error(
            `nats-server ${name} did not start: ${String(error)}\n${output.toArray().join('\n')}`,
          );
        });
      },
    };
    return node;
  });
  await Promise.all(nodes.map((node) => node.start()));
  return {
    nodes,
    urls: nodes.map((n) => n.url).join(','),
    async stop() {
      await Promise.all(nodes.map((n) => n.stop('SIGTERM')));
      rmSync(root, { recursive: true, force: true });
    },
  };
}
