import express from 'express';
import { z } from 'zod';
import { commonConfigSchema, env, loadConfig } from '@aff/config';

export const configSchema = commonConfigSchema.extend({
  PORT: env.port(8080),
  HOST: z.string().default('0.0.0.0'),
  /**
   * Operations port: `/metrics` (Prometheus), `/healthz`, `/readyz`. Never the public port, so
   * operational data is reachable only where the network policy lets Prometheus in. 0 picks a
   * free port, -1 turns it off.
   */
  OPS_PORT: z.coerce.number().int().min(-1).max(65535).default(8100),
  /** Base URL the gateway is reached at; used in links it hands out (magic links). */
  PUBLIC_URL: z.url({ error: 'must be an absolute URL' }).default('http://127.0.0.1:8080'),
  MONGO_URL: env.url(['mongodb', 'mongodb+srv']),
  MONGO_DB: z.string().min(1).default('gateway'),
  REDIS_URL: env.url(['redis', 'rediss']),
  /** Requests per window for merchants without their own limit. */
  RATE_LIMIT_POINTS: env.positiveInt(45),
  RATE_LIMIT_WINDOW_SECONDS: env.positiveInt(30),
  /** Requests per window per client IP on the public tracking intake (`/t/v1`). */
  TRACKING_RATE_LIMIT_POINTS: env.positiveInt(600),
  /** Failed API authentications allowed per client IP and window before 429s. */
  AUTH_FAILURE_POINTS: env.positiveInt(20),
  AUTH_FAILURE_WINDOW_SECONDS: env.positiveInt(60),
  /** How long an `Idempotency-Key` and its answer are kept. */
  IDEMPOTENCY_TTL_HOURS: env.positiveInt(24),
  /** How long a request waits for another in flight with the same key before a 409. */
  IDEMPOTENCY_WAIT_MS: env.positiveInt(10_000),
  /**
   * How long a key stays claimed by a request that never answered (its gateway died). At least
   * four RPC time-outs, so a live request never loses its claim.
   */
  IDEMPOTENCY_LOCK_MS: env.positiveInt(60_000),
  /**
   * How often the in-memory directory of secret hashes is reloaded in full, besides on every
   * `merchant changed` message: the most a lost message leaves a rotated secret working.
   */
  AUTH_DIRECTORY_RELOAD_SECONDS: env.positiveInt(30),
  /** How long a verified API secret is trusted without a database look-up. */
  AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).default(5000),
  /**
   * Which peers' `X-Forwarded-For` is believed, in Express's `trust proxy` syntax: `true`,
   * `false`, a hop count, or a comma-separated list of addresses, CIDRs and the names
   * `loopback`, `linklocal`, `uniquelocal`. The default believes only a proxy on this host.
   */
  TRUST_PROXY: z.string().default('loopback').transform(trustProxySetting).refine(validTrustProxy, {
    error:
      "must be true, false, a hop count, or addresses/CIDRs/'loopback'/'linklocal'/'uniquelocal'",
  }),
});
export type GatewayConfig = z.infer<typeof configSchema>;

export type TrustProxy = boolean | number | string;

function trustProxySetting(raw: string): TrustProxy {
  const value = raw.trim();
  if (value === 'true' || value === 'false') return value === 'true';
  return /^\d+$/.test(value) ? Number(value) : value;
}

/** Express compiles the setting when it is set, and throws on an address it cannot read. */
function validTrustProxy(value: TrustProxy): boolean {
  if (value === '') return false;
  try {
    express().set('trust proxy', value);
    return true;
  } catch {
    return false;
  }
}

export const loadGatewayConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig(configSchema, source);
