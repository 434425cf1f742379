/**
 * How long a list read (a page and its `total_count`) may run in the database: just under the
 * time the gateway waits for the service's reply (RPC_TIMEOUT_MS). A read the database cannot
 * answer from an index (a deep page or a filtered list on the local server, which keeps only
 * unique indexes) then stops when its caller has given up, instead of scanning on for nobody;
 * the service answers the same 504 the gateway gives for any slow reply (rpc-server.ts). Sent
 * as `maxTimeMS`, which MongoDB 7 honours natively and our local-server launcher honours too
 * (deploy/local/mongo-java-server, docs/local-database.md).
 */
import type { Connection, Model } from 'mongoose';

/** Left for the reply's way back through NATS and the gateway. */
export const LIST_TIME_MARGIN_MS = 500;

const limits = new WeakMap<Connection, number>();

/** Sets the list-read time limit of a connection from the time its service's callers wait. */
export function limitListReads(connection: Connection, requestTimeoutMs: number): void {
  limits.set(connection, Math.max(100, requestTimeoutMs - LIST_TIME_MARGIN_MS));
}

/** The query with its connection's list-read `maxTimeMS`; unchanged when it has none. */
export function limitedListRead<Q extends { maxTimeMS(ms: number): Q }>(
  query: Q,
  model: Pick<Model<never>, 'db'>,
): Q {
  const ms = limits.get(model.db);
  return ms === undefined ? query : query.maxTimeMS(ms);
}

/**
 * The connection's list-read limit for a read that has no `maxTimeMS` method (an aggregation
 * takes it as `.option({ maxTimeMS })`); undefined when the connection has none.
 */
export function listReadLimitMs(model: Pick<Model<never>, 'db'>): number | undefined {
  return limits.get(model.db);
}
