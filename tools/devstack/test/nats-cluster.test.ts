/**
 * The test cluster's nodes own their ports: a node whose port another process took does not
 * pass that process's answers off as its own start.
 */
import net from 'node:net';
import { findBinary } from '../src/binaries';
import { startNatsCluster, type NatsCluster } from '../src/nats-cluster';

const withServer = findBinary('nats-server') ? describe : describe.skip;

withServer('startNatsCluster', () => {
  let cluster: NatsCluster | undefined;
  afterAll(async () => {
    await cluster?.stop();
  });

  it('starts nodes on ports of their own, and refuses a restart onto a port taken meanwhile', async () => {
    cluster = (await startNatsCluster(2))!;
    expect(new Set(cluster.nodes.map((n) => n.url)).size).toBe(2);
    expect(cluster.urls).toBe(cluster.nodes.map((n) => n.url).join(','));

    const node = cluster.nodes[0]!;
    await node.stop();
    // Accepts and drops connections; the node's readiness probe hangs up at once, which resets
    // the squatter's side (ignored, as any server would).
    const squatter = net.createServer((socket) => {
      socket.on('error', () => undefined);
      socket.end();
    });
    await new Promise<void>((resolve) =>
      squatter.listen(Number(new URL(node.url).port), '127.0.0.1', resolve),
    );
    try {
      await expect(node.start()).rejects.toThrow(
        /nats-server n1 did not start: its port was taken/,
      );
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
    await node.start();
  }, 60_000);
});
