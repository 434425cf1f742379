/**
 * A JetStream cluster of local nats-server processes on free ports, for tests of what a cluster
 * adds: replicated streams that outlive a node. Each node keeps its store in its own directory,
 * so a node stopped and started again rejoins with what it had, as a restarted pod does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { findBinary } from './binaries';
import { freePort } from './free-port';
import { listensOn } from './port-owner';
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

/** Ports tried per start: a port chosen free may be taken by another process before the node binds it. */
const START_ATTEMPTS = 3;

/** Starts `size` clustered nodes; undefined when no local nats-server is installed. */
export async function startNatsCluster(size = 3): Promise<NatsCluster | undefined> {
  const binary = findBinary('nats-server');
  if (!binary) return undefined;
  for (let attempt = 1; ; attempt++) {
    const root = mkdtempSync(join(tmpdir(), 'nats-cluster-'));
    const nodes = clusterNodes(binary, root, await freePorts(size));
    try {
      await Promise.all(nodes.map((node) => node.start()));
    } catch (error) {
      await Promise.all(nodes.map((n) => n.stop('SIGKILL')));
      rmSync(root, { recursive: true, force: true });
      if (!(error instanceof PortTakenError) || attempt >= START_ATTEMPTS) throw error;
      continue;
    }
    return {
      nodes,
      urls: nodes.map((n) => n.url).join(','),
      async stop() {
        await Promise.all(nodes.map((n) => n.stop('SIGTERM')));
        rmSync(root, { recursive: true, force: true });
      },
    };
  }
}

class PortTakenError extends Error {}

async function freePorts(size: number) {
  const ports: { client: number; route: number }[] = [];
  for (let i = 0; i < size; i++) ports.push({ client: await freePort(), route: await freePort() });
  return ports;
}

function clusterNodes(
  binary: string,
  root: string,
  ports: { client: number; route: number }[],
): ClusterNode[] {
  const routes = ports.map((p) => `nats://${HOST}:${p.route}`).join(',');
  return ports.map(({ client, route }, i) => {
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
    let output = new RingBuffer<string>(30);
    const failure = (why: string) =>
      new Error(`nats-server ${name} did not start: ${why}\n${output.toArray().join('\n')}`);
    return {
      name,
      url: `nats://${HOST}:${client}`,
      async stop(signal: NodeJS.Signals = 'SIGKILL') {
        await proc?.stop(signal);
        proc = undefined;
      },
      async start() {
        if (proc) return;
        output = new RingBuffer<string>(30); // this start's output only
        const child = spawnManaged(`nats-${name}`, binary, args, { onLine: (l) => output.push(l) });
        proc = child;
        try {
          await waitForPort(client, HOST, READY_TIMEOUT_MS).catch((error: unknown) => {
            throw failure(String(error));
          });
          // An answer on the port is ours only if this node holds it; a node that lost its
          // port (or its route port) to another process exits at once.
          const owns = child.pid === undefined || listensOn(child.pid, client) !== false;
          const exited = await Promise.race([child.exited.then(() => true), delay(200, false)]);
          if (!owns || exited || /address already in use/i.test(output.toArray().join('\n'))) {
            throw new PortTakenError(failure('its port was taken').message);
          }
        } catch (error) {
          await child.stop('SIGKILL');
          proc = undefined;
          throw error;
        }
      },
    };
  });
}
