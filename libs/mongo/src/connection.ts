/** One mongoose connection per service, to that service's own database. */
import mongoose, { type Connection } from 'mongoose';

export async function connectMongo(url: string, dbName: string): Promise<Connection> {
  const connection = mongoose.createConnection(url, {
    dbName,
    serverSelectionTimeoutMS: 15_000,
    // Indexes carry uniqueness and idempotency rules; create them at start, not lazily.
    autoIndex: true,
    autoCreate: true,
  });
  return connection.asPromise();
}

export function isDuplicateKeyError(error: unknown): boolean {
  return (
    typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000
  );
}
