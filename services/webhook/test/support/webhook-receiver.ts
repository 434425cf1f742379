/**
 * A real HTTP receiver on 127.0.0.1 for webhook tests: records every request and answers as
 * the test says (a status, or never). It can be taken down and brought up on the same port.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  json: any;
  receivedAt: number;
}

/** A status to answer with, or 'hang' to never answer. */
export type Answer = number | 'hang';

export interface WebhookReceiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Decides each answer; `index` counts this receiver's requests from 0. Default: 200. */
  answer: (request: ReceivedRequest, index: number) => Answer;
  /** Resolves with the matching requests once `count` of them have arrived. */
  waitFor(
    match: (request: ReceivedRequest) => boolean,
    count?: number,
    timeoutMs?: number,
  ): Promise<ReceivedRequest[]>;
  stop(): Promise<void>;
  /** Listens again on the same port, keeping what was recorded. */
  restart(): Promise<void>;
}

export async function startReceiver(port = 0): Promise<WebhookReceiver> {
  const hanging = new Set<http.ServerResponse>();
  const receiver: WebhookReceiver = {
    url: '',
    port: 0,
    requests: [],
    answer: () => 200,
    waitFor: (match, count = 1, timeoutMs = 15_000) => waitFor(receiver, match, count, timeoutMs),
    stop: async () => {
      for (const res of hanging) res.destroy();
      hanging.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    restart: async () => {
      server = createServer();
      await listen(server, receiver.port);
    },
  };

  function createServer(): http.Server {
    return http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const received: ReceivedRequest = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: Object.fromEntries(
            Object.entries(req.headers).map(([k, v]) => [
              k,
              Array.isArray(v) ? v.join(',') : (v ?? ''),
            ]),
          ),
          body,
          json: parse(body),
          receivedAt: Date.now(),
        };
        const index = receiver.requests.push(received) - 1;
        const answer = receiver.answer(received, index);
        if (answer === 'hang') {
          hanging.add(res);
          return;
        }
        res.writeHead(answer, { 'content-type': 'text/plain' });
        res.end('ok');
      });
    });
  }

  let server = createServer();
  await listen(server, port);
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hooks`;
  return receiver;
}

function listen(server: http.Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function waitFor(
  receiver: WebhookReceiver,
  match: (request: ReceivedRequest) => boolean,
  count: number,
  timeoutMs: number,
): Promise<ReceivedRequest[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = receiver.requests.filter(match);
    if (found.length >= count) return found;
    if (Date.now() > deadline) {
      throw new Error(
        `expected ${count} matching webhook request(s), got ${found.length} of ${receiver.requests.length}: ` +
          JSON.stringify(receiver.requests.map((r) => r.json?.event ?? r.body)),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Requests of one event type. */
export const ofType = (type: string) => (request: ReceivedRequest) =>
  request.json?.event?.type === type;
