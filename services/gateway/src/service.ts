/** Composition root of the gateway: connections, merchant auth, limiter, RPC client, HTTP server. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Redis from 'ioredis';
import { MERCHANT_CHANGED_SUBJECT } from '@aff/contracts';
import { atMost, startHealthServer } from '@aff/api';
import type { Logger } from '@aff/logging';
import {
  EventPublisher,
  RpcClient,
  connectNats,
  ensureStreams,
  natsReachable,
} from '@aff/messaging';
import { connectMongo, mongoReachable } from '@aff/mongo';
import type { GatewayConfig } from './config';
import { buildApp } from './http/app';
import { MerchantAuthenticator } from './merchants/merchant-authenticator';
import { MerchantRepository } from './merchants/merchant.repository';
import { SecretDirectory } from './merchants/secret-directory';
import { rateLimitAddressKey } from './http/client-address';
import { merchantModel } from './merchants/merchant.schema';
import { MerchantRateLimiter } from './rate-limit/merchant-rate-limiter';
import { AuthFailureGuard } from './rate-limit/auth-failure-guard';
import { idempotencyStore } from './idempotency/idempotency-store-factory';
import { PublicKeyResolver } from './public/public-key-resolver';
import { gatewayRetention, startRetention } from './retention';

export interface RunningGateway {
  port: number;
  opsPort: number | undefined;
  stop(): Promise<void>;
}

export async function startGateway(config: GatewayConfig, log: Logger): Promise<RunningGateway> {
  const mongo = await connectMongo(config.MONGO_URL, config.MONGO_DB);
  const merchants = merchantModel(mongo);
  await merchants.init();
  const nc = await connectNats(config.NATS_URL, 'gateway', log);
  await ensureStreams(nc, ['gateway'], { replicas: config.NATS_STREAM_REPLICAS });
  // Fail fast instead of queueing: a down Redis must hand over to the in-process limiter at once.
  const redis = new Redis(config.REDIS_URL, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    lazyConnect: false,
  });
  redis.on('error', (err: Error) => log.warn({ err: err.message }, 'redis unavailable'));

  const merchantRepository = new MerchantRepository(merchants);
  const authenticator = new MerchantAuthenticator(merchantRepository, config.AUTH_CACHE_TTL_MS);
  const keys = new PublicKeyResolver(merchantRepository, config.AUTH_CACHE_TTL_MS);
  const directory = new SecretDirectory(merchantRepository);
  await merchantRepository.ensureAddressSalts();
  const addressKey = await rateLimitAddressKey(mongo);
  const reloadDirectory = () =>
    directory
      .reload()
      .catch((err: unknown) => log.warn({ err: String(err) }, 'secret directory reload failed'));
  const invalidations = nc.subscribe(MERCHANT_CHANGED_SUBJECT, {
    callback: () => {
      authenticator.forgetAll();
      keys.forgetAll();
      void reloadDirectory();
    },
  });
  await directory.reload();
  const directoryReloads = setInterval(
    () => void reloadDirectory(),
    config.AUTH_DIRECTORY_RELOAD_SECONDS * 1000,
  );
  directoryReloads.unref();
  const limiter = new MerchantRateLimiter(
    redis,
    config.RATE_LIMIT_POINTS,
    config.RATE_LIMIT_WINDOW_SECONDS,
  );
  const rpc = new RpcClient(nc, config.RPC_TIMEOUT_MS);
  const idempotencyKeys = await idempotencyStore(redis, mongo, log);

  const readiness = {
    mongo: () => mongoReachable(mongo),
    nats: () => natsReachable(nc),
  };
  const degradable = { redis: () => redis.status === 'ready' };
  const app = buildApp({
    directory,
    authenticator,
    limiter,
    authFailures: new AuthFailureGuard(
      redis,
      config.AUTH_FAILURE_POINTS,
      config.AUTH_FAILURE_WINDOW_SECONDS,
    ),
    idempotency: {
      store: idempotencyKeys,
      ttlMs: config.IDEMPOTENCY_TTL_HOURS * 3_600_000,
      waitMs: config.IDEMPOTENCY_WAIT_MS,
      // Far above the RPC time-out: only a gateway that died mid-request leaves a key this long.
      lockMs: Math.max(config.IDEMPOTENCY_LOCK_MS, config.RPC_TIMEOUT_MS * 4),
      pollMs: 25,
      log,
    },
    rpc,
    log,
    trustProxy: config.TRUST_PROXY,
    addressKey,
    readiness,
    degradable,
    publicRoutes: {
      keys,
      addressKey,
      addressSaltOf: (merchant) =>
        merchant.client_address_salt
          ? Promise.resolve(merchant.client_address_salt)
          : merchantRepository.addressSaltOf(merchant._id),
      limiter,
      ipPoints: config.TRACKING_RATE_LIMIT_POINTS,
      rpc,
      publisher: new EventPublisher(nc),
      publicUrl: config.PUBLIC_URL,
      log,
    },
    pages: {
      rpc,
      limiter,
      addressKey,
      ipPoints: config.TRACKING_RATE_LIMIT_POINTS,
      signIns: {
        publisher: new EventPublisher(nc),
        addressSaltOf: (merchantId) => merchantRepository.addressSaltOf(merchantId),
        log,
      },
    },
  });
  // Before the API port: whoever waits for the API to answer finds the metrics port up too.
  const ops = await startHealthServer(config.OPS_PORT, readiness, degradable);
  // Express 5 calls back on a failed bind too, with the error (EADDRINUSE when the port is taken).
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(config.PORT, config.HOST, (error?: Error) =>
      error ? reject(error) : resolve(s),
    );
  });
  // Idle keep-alive connections outlive those of the clients and load balancers in front (they
  // close first, typically at 60 s or less), so a request never meets a socket we just closed.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const port = (server.address() as AddressInfo).port;
  log.info(
    { port, opsPort: ops?.port, publicUrl: config.PUBLIC_URL, merchants: directory.size },
    'gateway listening',
  );
  const stopRetention = startRetention(gatewayRetention(mongo), config.RETENTION_PRUNE_MS, log);

  return {
    port,
    opsPort: ops?.port,
    async stop() {
      stopRetention();
      // In-flight requests finish (idle keep-alive sockets close at once); stragglers are cut.
      await atMost(new Promise<void>((resolve) => server.close(() => resolve())), 2_000);
      server.closeAllConnections();
      await atMost(ops?.close() ?? Promise.resolve(), 500);
      invalidations.unsubscribe();
      clearInterval(directoryReloads);
      await atMost(nc.drain(), 1_000);
      await atMost(nc.close(), 200);
      redis.disconnect();
      await atMost(mongo.close(), 500);
    },
  };
}
