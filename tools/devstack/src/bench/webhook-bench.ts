/**
 * Webhook delivery benchmark, on the system `run-bench` started: a local receiver that answers
 * 200 at once, one endpoint subscribed to `affiliate.created`, affiliates created through the
 * gateway. Two figures:
 *  - live: events created at a steady pace; latency from the event's `created_at` (stamped by
 *    the affiliate service just before its write and publish) to receipt, p50 and p99;
 *  - backlog: the webhook service is stopped while events pile up in JetStream, then started;
 *    delivered events per second while it drains (fan-out, claim, sign, send, log).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningSystem } from '../system';
import type { MeasuredWindow } from './money-bench';
import { settleCpu } from './settle';
import type { WriteAccount, WriteMeter } from './write-stats';

export interface WebhookBenchOptions {
  /** Events in the latency phase. */
  liveEvents?: number;
  /** Affiliates created at once in the latency phase (1: one after the other, no queueing). */
  liveConcurrency?: number;
  /** Events piled up for the throughput phase. */
  backlogEvents?: number;
  log?: (line: string) => void;
  /** Around the backlog's drain, from the webhook service being ready to the last delivery. */
  drainWindow?: MeasuredWindow;
  /** Documents written per delivery by the restarted webhook service, once it settled. */
  writes?: WriteMeter;
}

export interface WebhookBenchResult {
  live: { events: number; eventsPerSecond: number; p50Ms: number; p99Ms: number };
  /** From the restarted service being ready to the last delivery: the deliveries made since. */
  backlog: { events: number; measured: number; seconds: number; eventsPerSecond: number };
  writes?: WriteAccount;
}

interface Receipt {
  createdAt: number;
  receivedAt: number;
}

export async function benchWebhooks(
  system: RunningSystem,
  merchant: { api_secret: string },
  opts: WebhookBenchOptions = {},
): Promise<WebhookBenchResult> {
  const log = opts.log ?? (() => undefined);
  const receiver = await startReceiver();
  try {
    const auth = `Basic ${Buffer.from(`${merchant.api_secret}:`).toString('base64')}`;
    const post = (path: string, body: Record<string, unknown>) =>
      postJson(system.gatewayUrl, auth, path, body);
    await post('/v1/webhook_endpoints', { url: receiver.url, events: ['affiliate.created'] });

    const liveEvents = opts.liveEvents ?? 300;
    log(`webhook bench: ${liveEvents} events at a steady pace`);
    receiver.receipts.length = 0;
    await createAffiliates(post, liveEvents, opts.liveConcurrency ?? 1);
    const live = await receiver.waitForCount(liveEvents);
    const latencies = live.map((r) => r.receivedAt - r.createdAt).sort((a, b) => a - b);
    const liveSpan =
      Math.max(...live.map((r) => r.receivedAt)) - Math.min(...live.map((r) => r.createdAt));

    const backlogEvents = opts.backlogEvents ?? 1000;
    log(`webhook bench: ${backlogEvents} events piled up while the webhook service is stopped`);
    await system.stopProcess('webhook');
    receiver.receipts.length = 0;
    await createAffiliates(post, backlogEvents, 16);
    // The affiliates' own fan-out (counters, links) settles first: those are not its writes.
    if (opts.writes) await settleCpu({ timeoutMs: 20_000 });
    const writeWindow = await opts.writes?.start();
    await system.startProcess('webhook');
    // Start-up is off the clock: it runs from the service being ready, over what is left.
    const doneAtStart = receiver.receipts.length;
    const started = Date.now();
    const measured = opts.drainWindow?.();
    const drained = await receiver.waitForCount(backlogEvents, 300_000);
    const seconds = (Math.max(...drained.map((r) => r.receivedAt)) - started) / 1000;
    measured?.end(backlogEvents - doneAtStart);
    await settleCpu({ timeoutMs: 20_000 });
    const writes = await writeWindow?.end(backlogEvents);

    return {
      live: {
        events: liveEvents,
        eventsPerSecond: liveEvents / (liveSpan / 1000),
        p50Ms: percentile(latencies, 0.5),
        p99Ms: percentile(latencies, 0.99),
      },
      backlog: {
        events: backlogEvents,
        measured: backlogEvents - doneAtStart,
        seconds,
        eventsPerSecond: (backlogEvents - doneAtStart) / seconds,
      },
      writes,
    };
  } finally {
    await receiver.close();
  }
}

export function formatWebhookBench(result: WebhookBenchResult): string {
  const { live, backlog } = result;
  return [
    'Webhooks (affiliate.created → local receiver answering 200 at once, one endpoint)',
    `  live, ${live.events} events: event created → received p50 ${live.p50Ms} ms, p99 ${live.p99Ms} ms (${live.eventsPerSecond.toFixed(1)} events/s offered)`,
    `  backlog of ${backlog.events} events: ${backlog.measured} delivered in ${backlog.seconds.toFixed(1)} s from the restarted service being ready = ${backlog.eventsPerSecond.toFixed(1)} deliveries/s`,
  ].join('\n');
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0;
}

async function postJson(
  gatewayUrl: string,
  auth: string,
  path: string,
  body: Record<string, unknown>,
): Promise<unknown> {
  const res = await fetch(`${gatewayUrl}${path}`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer: unknown = await res.json();
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

/**
 * A loaded machine may time a create out (504) after it went through; a retry that then finds
 * the e-mail taken (422) means the affiliate, and its event, exist.
 */
async function withRetries(call: () => Promise<unknown>, attempts = 5): Promise<void> {
  let timedOut = false;
  for (let i = 1; ; i++) {
    try {
      await call();
      return;
    } catch (error) {
      if (timedOut && / 422 /.test(String(error))) return;
      if (i >= attempts || !/ 50[34] /.test(String(error))) throw error;
      timedOut = true;
      await new Promise((resolve) => setTimeout(resolve, 500 * i));
    }
  }
}

async function createAffiliates(
  post: (path: string, body: Record<string, unknown>) => Promise<unknown>,
  count: number,
  concurrency: number,
): Promise<void> {
  const stamp = Date.now();
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      await withRetries(() =>
        post('/v1/affiliates', {
          first_name: 'Hook',
          last_name: `Bench${i}`,
          email: `hook-bench-${stamp}-${i}@example.com`,
        }),
      );
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** A local endpoint answering 200 at once; counts what it received by event type. */
export async function startReceiver() {
  const receipts: Receipt[] = [];
  const byType = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const receivedAt = Date.now();
      res.writeHead(200).end();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        event: { type: string; created_at: string };
      };
      byType.set(body.event.type, (byType.get(body.event.type) ?? 0) + 1);
      if (body.event.type === 'affiliate.created') {
        receipts.push({ createdAt: Date.parse(body.event.created_at), receivedAt });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/bench`,
    receipts,
    received: (type: string) => byType.get(type) ?? 0,
    async waitForCount(count: number, timeoutMs = 120_000): Promise<Receipt[]> {
      const deadline = Date.now() + timeoutMs;
      while (receipts.length < count) {
        if (Date.now() > deadline) {
          throw new Error(`webhook bench: ${receipts.length} of ${count} deliveries arrived`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return receipts.slice(0, count);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
