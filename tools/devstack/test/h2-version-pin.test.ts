/**
 * The local database's H2 backend answers long reads while writes free space under them, at a
 * retention time of 0 (`MJS_RETAIN_FREED_CHUNKS_MS`: H2 may reuse freed space at once), because
 * every command pins the store version it starts on (docs/local-database.md). What this test
 * shows is that scans stay whole and exact under that setting, with the pin in the command path.
 * What it does not show at its CI size: that they would fail without the pin. Scans of a few
 * seconds passed without it too; the failure ("Chunk … not found" on every scan) was seen with
 * 200,000 documents and scans of 13-60 s (docs/local-database.md gives the run).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mongo } from 'mongoose';
import { startLocalServer } from '../src/local-servers';
import type { StartedServer } from '../src/types';

const DOCS = 30_000;
const PAD = 2_000;
const SCANS = 3;
let dataRoot: string;
let server: StartedServer | undefined;
let client: mongo.MongoClient;

type Doc = { _id: string; merchant_id: string; n: number; pad: string };

beforeAll(async () => {
  dataRoot = mkdtempSync(join(tmpdir(), 'h2-pin-test-'));
  const before = process.env.MJS_RETAIN_FREED_CHUNKS_MS;
  process.env.MJS_RETAIN_FREED_CHUNKS_MS = '0';
  try {
    server = await startLocalServer('mongo', dataRoot, () => undefined, { mongoBackend: 'h2' });
  } finally {
    if (before === undefined) delete process.env.MJS_RETAIN_FREED_CHUNKS_MS;
    else process.env.MJS_RETAIN_FREED_CHUNKS_MS = before;
  }
  client = await new mongo.MongoClient(server.url, { serverSelectionTimeoutMS: 10_000 }).connect();
}, 5 * 60_000);

afterAll(async () => {
  await client?.close();
  await server?.stop();
  rmSync(dataRoot, { recursive: true, force: true });
});

it(
  'answers whole-collection scans while writes free the chunks under them',
  async () => {
    const docs = client.db('h2_version_pin').collection<Doc>('docs');
    for (let i = 0; i < DOCS; i += 5_000) {
      await docs.insertMany(
        Array.from({ length: 5_000 }, (_, j) => ({
          _id: `d${i + j}`,
          merchant_id: 'm1',
          n: i + j,
          pad: 'p'.repeat(PAD),
        })),
        { ordered: false },
      );
    }
    let writing = true;
    let rewritten = 0;
    const writer = (async () => {
      for (let round = 0; writing; round++) {
        const batch = Array.from({ length: 200 }, (_, k) => ({
          updateOne: {
            filter: { _id: `d${(round * 7_919 + k * 131) % DOCS}` },
            update: { $set: { pad: `${'q'.repeat(PAD)}${round}` } },
          },
        }));
        rewritten += (await docs.bulkWrite(batch, { ordered: false })).modifiedCount;
      }
    })();
    try {
      for (let scan = 0; scan < SCANS; scan++) {
        // Neither filter is an index's, so both read every document (and the page sorts them).
        expect(await docs.countDocuments({ merchant_id: 'm1', n: { $gte: 0 } })).toBe(DOCS);
        const page = await docs
          .find({ merchant_id: 'm1' })
          .sort({ n: -1 })
          .skip(1_000)
          .limit(25)
          .toArray();
        expect(page.map((d) => d.n)).toEqual(
          Array.from({ length: 25 }, (_, i) => DOCS - 1_001 - i),
        );
      }
    } finally {
      writing = false;
      await writer;
    }
    // The writes really went on under the scans.
    expect(rewritten).toBeGreaterThan(1_000);
  },
  10 * 60_000,
);
