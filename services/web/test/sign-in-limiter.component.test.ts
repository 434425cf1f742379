/**
 * The console's sign-in limit over the real MongoDB-protocol server: one count per address and
 * window shared by every web replica (two limiters on one database, as two replicas), exact
 * under concurrent requests, per address, and a new window starts afresh; no address is stored
 * in clear.
 */
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { connectMongo } from '@aff/mongo';
import { consoleModels, type ConsoleModels } from '../src/console/console.schema';
import { SIGN_IN_WINDOW_MS, SignInLimiter } from '../src/console/sign-in-limiter';

let mongo: Connection;
let models: ConsoleModels;
beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `sign_in_limit_test_${Date.now()}`);
  models = consoleModels(mongo);
  await models.consoleSignInCount.init();
});
afterAll(async () => {
  await mongo.dropDatabase();
  await mongo.close();
});

it('counts an address once across replicas: the limit holds for both together', async () => {
  const [a, b] = [1, 2].map(
    () => new SignInLimiter(models.consoleSignInCount, 5, SIGN_IN_WINDOW_MS),
  );
  const address = `${randomUUID()}@example.com`;
  const answers: boolean[] = [];
  for (let i = 0; i < 4; i++) {
    answers.push(await a!.allow(address), await b!.allow(address));
  }
  expect(answers).toEqual([true, true, true, true, true, false, false, false]);
  expect(await a!.allow(`${randomUUID()}@example.com`)).toBe(true);
  const stored = await models.consoleSignInCount.find({}).lean().exec();
  expect(JSON.stringify(stored)).not.toContain(address);
});

it('lets exactly the limit through when requests arrive at once', async () => {
  const limiter = new SignInLimiter(models.consoleSignInCount, 5, SIGN_IN_WINDOW_MS);
  const address = `${randomUUID()}@example.com`;
  const answers = await Promise.all(Array.from({ length: 12 }, () => limiter.allow(address)));
  expect(answers.filter(Boolean)).toHaveLength(5);
});

it('starts afresh in the next window', async () => {
  let clock = 10 * SIGN_IN_WINDOW_MS;
  const limiter = new SignInLimiter(models.consoleSignInCount, 2, SIGN_IN_WINDOW_MS, () => clock);
  const address = `${randomUUID()}@example.com`;
  expect([await limiter.allow(address), await limiter.allow(address)]).toEqual([true, true]);
  expect(await limiter.allow(address)).toBe(false);
  clock += SIGN_IN_WINDOW_MS;
  expect(await limiter.allow(address)).toBe(true);
});
