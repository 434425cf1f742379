/**
 * `npm run ops` finds a running stack where `npm start` wrote it: `runtime.json` in AFF_LOCAL_DIR
 * (relative to the repository root, or absolute), else in `.local`; MONGO_URL and NATS_URL win.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadOpsSettings, runtimeFile } from '../src/ops/runtime-settings';

const ROOT = path.resolve(__dirname, '../../..');
let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ops-settings-'));
  fs.writeFileSync(
    path.join(dir, 'runtime.json'),
    JSON.stringify({ mongo_url: 'mongodb://127.0.0.1:1111/', nats_url: 'nats://127.0.0.1:2222' }),
  );
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

it('reads runtime.json from AFF_LOCAL_DIR', () => {
  expect(loadOpsSettings({ AFF_LOCAL_DIR: dir })).toEqual({
    mongoUrl: 'mongodb://127.0.0.1:1111/',
    mongoDb: 'gateway',
    natsUrl: 'nats://127.0.0.1:2222',
  });
});

it('resolves a relative AFF_LOCAL_DIR against the repository root, as the launcher does', () => {
  expect(runtimeFile({ AFF_LOCAL_DIR: 'elsewhere' })).toBe(
    path.join(ROOT, 'elsewhere', 'runtime.json'),
  );
  expect(runtimeFile({})).toBe(path.join(ROOT, '.local', 'runtime.json'));
});

it('lets MONGO_URL and NATS_URL win over the file', () => {
  const settings = loadOpsSettings({
    AFF_LOCAL_DIR: dir,
    MONGO_URL: 'mongodb://db.internal:27017/',
    NATS_URL: 'nats://bus.internal:4222',
  });
  expect(settings).toMatchObject({
    mongoUrl: 'mongodb://db.internal:27017/',
    natsUrl: 'nats://bus.internal:4222',
  });
});

it('says which file it looked for when no stack runs there', () => {
  const empty = path.join(dir, 'none');
  expect(() => loadOpsSettings({ AFF_LOCAL_DIR: empty })).toThrow(path.join(empty, 'runtime.json'));
});
