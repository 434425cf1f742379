/**
 * The local database's H2 backend with our launcher's unique-index key type (docs/local-database.md):
 * unique single and compound keys are found, enforced and kept across a restart on the same file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mongo } from 'mongoose';
import { startLocalServer } from '../src/local-servers';
import type { StartedServer } from '../src/types';

const DOCS = 2_000;
let dataRoot: string;
let server: StartedServer | undefined;

/** Ids and keys in an order unlike the insertion order, so the B-tree is searched, not appended. */
const idOf = (i: number) => `id-${(i * 7919) % DOCS}`;
const merchantOf = (i: number) => `m${i % 3}`;

async function withDb<T>(work: (db: mongo.Db) => Promise<T>): Promise<T> {
  const client = new mongo.MongoClient(server!.url, { serverSelectionTimeoutMS: 10_000 });
  try {
    await client.connect();
    return await work(client.db('h2_unique_index'));
  } finally {
    await client.close();
  }
}

/** `added`: documents an earlier check inserted (each check inserts one). */
async function expectIndexesWork(db: mongo.Db, added: number): Promise<void> {
  const things = db.collection<{ _id: string; merchant_id: string; key: string }>('things');
  expect(await things.countDocuments()).toBe(DOCS + added);
  // Found by `_id`, by a compound unique key, and by `_id` plus more (the launcher's id-first path).
  for (const i of [0, 1, 17, 999, DOCS - 1]) {
    expect(await things.findOne({ _id: idOf(i) })).toMatchObject({ key: `k${i}` });
    expect(await things.findOne({ merchant_id: merchantOf(i), key: `k${i}` })).toMatchObject({
      _id: idOf(i),
    });
    expect(await things.findOne({ _id: idOf(i), merchant_id: merchantOf(i) })).not.toBeNull();
  }
  expect(await things.findOne({ merchant_id: 'm0', key: 'k1' })).toBeNull();
  // Enforced: a repeated `_id`, a repeated compound key.
  await expect(
    things.insertOne({ _id: idOf(5), merchant_id: 'other', key: 'fresh' }),
  ).rejects.toMatchObject({ code: 11000 });
  await expect(
    things.insertOne({ _id: 'fresh', merchant_id: merchantOf(7), key: 'k7' }),
  ).rejects.toMatchObject({ code: 11000 });
  const batch = await things
    .insertMany(
      [
        { _id: `new-${Date.now()}`, merchant_id: 'm9', key: `n${Date.now()}` },
        { _id: idOf(3), merchant_id: 'm9', key: 'dup-id' },
      ],
      { ordered: false },
    )
    .catch((error: { writeErrors?: { index: number; code: number }[] }) => error);
  expect('writeErrors' in batch && batch.writeErrors?.map((e) => [e.index, e.code])).toEqual([
    [1, 11000],
  ]);
}

beforeAll(async () => {
  dataRoot = mkdtempSync(join(tmpdir(), 'h2-index-test-'));
  server = await startLocalServer('mongo', dataRoot, () => undefined, { mongoBackend: 'h2' });
}, 5 * 60_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dataRoot, { recursive: true, force: true });
});

it('finds and enforces unique keys, and still does after a restart on the same file', async () => {
  await withDb(async (db) => {
    const things = db.collection('things');
    await things.createIndex({ merchant_id: 1, key: 1 }, { unique: true });
    const docs = Array.from({ length: DOCS }, (_, i) => ({
      _id: idOf(i),
      merchant_id: merchantOf(i),
      key: `k${i}`,
    }));
    await things.insertMany(docs as never[], { ordered: false });
    await expectIndexesWork(db, 0);
  });
  await server!.stop();
  // The same data root: the server starts on `mongo-1/` again, which holds the H2 file.
  server = await startLocalServer('mongo', dataRoot, () => undefined, { mongoBackend: 'h2' });
  await withDb((db) => expectIndexesWork(db, 1));
}, 120_000);
