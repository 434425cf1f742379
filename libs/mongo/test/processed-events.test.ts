/**
 * The record of applied events over a real MongoDB-protocol server: an event applies once, the
 * record follows its effect (never precedes it), and an event whose apply failed is not recorded.
 */
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { ProcessedEvents, connectMongo, processedEventModel } from '../src';

let mongo: Connection;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `processed_events_${Date.now()}`);
});

afterAll(async () => {
  await mongo.dropDatabase().catch(() => undefined);
  await mongo.close();
});

async function recorded(processed: ProcessedEvents, eventId: string): Promise<boolean> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    if (await processed.has('test', eventId)) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

it('applies an event once: its record, written after the effect, stops a redelivery', async () => {
  const failures: unknown[] = [];
  const processed = new ProcessedEvents(processedEventModel(mongo), (error) =>
    failures.push(error),
  );
  const eventId = randomUUID();
  let applied = 0;
  let recordedBeforeEffectDone: boolean | undefined;
  const apply = async () => {
    recordedBeforeEffectDone = await processed.has('test', eventId);
    applied += 1;
  };

  expect(await processed.once('test', eventId, apply)).toBe(true);
  expect(recordedBeforeEffectDone).toBe(false);
  expect(await recorded(processed, eventId)).toBe(true);
  expect(await processed.once('test', eventId, apply)).toBe(false);
  expect(applied).toBe(1);
  expect(failures).toEqual([]);
});

it('records concurrent events, each once', async () => {
  const processed = new ProcessedEvents(processedEventModel(mongo));
  const ids = Array.from({ length: 50 }, () => randomUUID());
  const applied = new Map<string, number>();
  const applyOf = (id: string) => async () => {
    applied.set(id, (applied.get(id) ?? 0) + 1);
  };
  await Promise.all(ids.map((id) => processed.once('test', id, applyOf(id))));
  for (const id of ids) expect(await recorded(processed, id)).toBe(true);
  await Promise.all(ids.map((id) => processed.once('test', id, applyOf(id))));
  expect([...applied.values()]).toEqual(Array(50).fill(1));
});

it('does not record an event whose apply failed, so its redelivery applies it', async () => {
  const processed = new ProcessedEvents(processedEventModel(mongo));
  const eventId = randomUUID();
  await expect(
    processed.once('test', eventId, async () => {
      throw new Error('database down');
    }),
  ).rejects.toThrow('database down');
  // Give a wrongly started record time to land before checking that none did.
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(await processed.has('test', eventId)).toBe(false);
  let applied = 0;
  expect(
    await processed.once('test', eventId, async () => {
      applied += 1;
    }),
  ).toBe(true);
  expect(applied).toBe(1);
});
