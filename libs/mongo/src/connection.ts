/** One mongoose connection per service, to that service's own database. */
import mongoose, { type Connection, type Schema } from 'mongoose';
import { DuplicateError } from '@aff/api';
import { collectCommandStats, commandStatsEnabled } from './command-stats';
import { limitListReads } from './list-time-limit';

/**
 * Mongoose otherwise formats a stack trace on every query it runs (to append where a failed query
 * was issued): measured at 3% of a consumer's CPU in a drain. Driver errors keep their own stack.
 */
mongoose.set('skipOriginalStackTraces', true);

export interface ConnectOptions {
  /** How long the service's callers wait for a reply (RPC_TIMEOUT_MS): bounds list reads. */
  requestTimeoutMs?: number;
}

export async function connectMongo(
  url: string,
  dbName: string,
  opts: ConnectOptions = {},
): Promise<Connection> {
  const connection = mongoose.createConnection(url, {
    dbName,
    serverSelectionTimeoutMS: 15_000,
    // Indexes carry uniqueness and idempotency rules; create them at start, not lazily.
    autoIndex: true,
    autoCreate: true,
    ...(commandStatsEnabled() ? { monitorCommands: true } : {}),
  });
  connection.plugin(tenantKeyIndex);
  if (opts.requestTimeoutMs) limitListReads(connection, opts.requestTimeoutMs);
  await connection.asPromise();
  collectCommandStats(connection, dbName);
  return connection;
}

/**
 * Every merchant-scoped write filters by `{_id, merchant_id}`. MongoDB answers that from the
 * `_id` index; mongo-java-server (the local server) uses an index only when a filter's fields are
 * exactly an index's fields, and otherwise scans the whole collection on every update (measured:
 * 176 against 1,439 updates/s on 20,000 documents). This unique index, redundant on MongoDB and
 * cheap there, makes those writes index lookups on both.
 */
export function tenantKeyIndex(schema: Schema): void {
  if (schema.path('merchant_id')) schema.index({ _id: 1, merchant_id: 1 }, { unique: true });
  // The outbox sweep's filter (pending-events.ts; at start, then every 1-15 min): without it
  // MongoDB reads every document of every outbox collection each sweep, a cost that grows with
  // history. Documents with no pending event have no key in range. The local server ignores it
  // (scans), which is why the sweep is rare (docs/decisions.md).
  if (schema.path('pending_events')) schema.index({ 'pending_events.queued_at': 1 });
}

export function isDuplicateKeyError(error: unknown): boolean {
  return (
    typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000
  );
}

/**
 * Runs a write and rethrows a duplicate-key error as the domain's `DuplicateError` (libs/api),
 * so repositories speak to their domain without driver errors; anything else passes unchanged.
 */
export async function mapDuplicate<T>(write: Promise<T>, what: string): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (isDuplicateKeyError(error)) throw new DuplicateError(what);
    throw error;
  }
}
