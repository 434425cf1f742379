/**
 * The sign-in look-up of every visit with a client address, over a real MongoDB-protocol server:
 * look-ups made together share one read per merchant (the bench measured one database read per
 * visit before), each answers its own key, merchants stay apart, and a sign-in recorded before
 * a look-up is seen by it.
 */
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { connectMongo } from '@aff/mongo';
import { AddressFactsRepository, addressFactModels } from '../src/data/address-facts.repository';

let mongo: Connection;
let models: ReturnType<typeof addressFactModels>;
let facts: AddressFactsRepository;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `address_facts_${randomUUID().slice(0, 8)}`);
  models = addressFactModels(mongo);
  await models.signIns.init();
  facts = new AddressFactsRepository(models);
});
afterAll(async () => {
  await mongo?.dropDatabase();
  await mongo?.close();
});

it('answers concurrent sign-in look-ups from one read per merchant', async () => {
  const [m1, m2] = [`mer_${randomUUID()}`, `mer_${randomUUID()}`];
  const at = new Date('2026-11-01T10:00:00Z');
  await facts.recordSignIn(m1, 'aff_a', 'hash_1', at);
  await facts.recordSignIn(m2, 'aff_a', 'hash_2', at);

  const finds = jest.spyOn(models.signIns, 'find');
  const findOnes = jest.spyOn(models.signIns, 'findOne');
  try {
    const answers = await Promise.all([
      facts.lastSignIn(m1, 'aff_a', 'hash_1'),
      facts.lastSignIn(m1, 'aff_a', 'hash_2'), // m2's address: not m1's
      facts.lastSignIn(m1, 'aff_b', 'hash_1'),
      facts.lastSignIn(m2, 'aff_a', 'hash_2'),
      facts.lastSignIn(m1, 'aff_a', 'hash_1'),
    ]);
    expect(answers).toEqual([at, null, null, at, at]);
    expect(finds).toHaveBeenCalledTimes(2);
    expect(findOnes).not.toHaveBeenCalled();
  } finally {
    finds.mockRestore();
    findOnes.mockRestore();
  }
});

it('sees a sign-in recorded before the look-up', async () => {
  const merchant = `mer_${randomUUID()}`;
  expect(await facts.lastSignIn(merchant, 'aff_c', 'hash_3')).toBeNull();
  const at = new Date('2026-11-02T10:00:00Z');
  await facts.recordSignIn(merchant, 'aff_c', 'hash_3', at);
  expect(await facts.lastSignIn(merchant, 'aff_c', 'hash_3')).toEqual(at);
});
