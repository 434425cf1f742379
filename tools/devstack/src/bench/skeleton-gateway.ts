/**
 * Bench baseline (visits): the gateway half of the design's visit path with nothing but its
 * mandated parts: node:http, the Redis rate limit (rate-limiter-flexible over ioredis), and a
 * NATS request to the owning service (skeleton-service.ts), whose reply is the answer.
 *
 * The pair is the ceiling of any implementation of DESIGN.md's visit path on the machine it
 * runs on: what remains once Express, auth, telemetry, the link catalog, the referral's events
 * and the counters they feed are taken away. The bench prints it beside the visits so every run
 * shows how much of the raw insert rate the design's own hops leave.
 */
import { connect } from '@nats-io/transport-node';
import http from 'node:http';
import Redis from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { SKELETON_SUBJECT } from './skeleton-subject';

const [portArg, natsUrl, redisUrl] = process.argv.slice(2);

async function main(): Promise<void> {
  const nc = await connect({ servers: natsUrl!.split(',') });
  const redis = new Redis(redisUrl!, { enableOfflineQueue: false });
  await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
  const limiter = new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: 'bench-skeleton',
    points: 1_000_000_000,
    duration: 60,
  });
  http
    .createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        void limiter
          .consume(req.socket.remoteAddress ?? 'unknown')
          .then(() => nc.request(SKELETON_SUBJECT, Buffer.concat(chunks), { timeout: 5000 }))
          .then(
            (reply) => {
              res.writeHead(reply.data.length ? 201 : 503, { 'content-type': 'application/json' });
              res.end(reply.data);
            },
            () => {
              res.writeHead(503);
              res.end();
            },
          );
      });
    })
    .listen(Number(portArg), '127.0.0.1', () => process.send?.('ready'));
}

void main();
