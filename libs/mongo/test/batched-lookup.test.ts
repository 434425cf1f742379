/**
 * Batched reads by key: concurrent look-ups share one load, each caller gets its own answer;
 * over a real MongoDB-protocol server, `findByUnique` keeps merchants apart and sees writes
 * finished before the read.
 */
import { Schema, type Connection } from 'mongoose';
import { BatchedLookup, TenantRepository, connectMongo, type TenantRecord } from '../src';

interface CustomerRecord extends TenantRecord {
  customer_key: string;
  name: string;
}

describe('BatchedLookup', () => {
  it('answers look-ups made together from one load of their distinct keys', async () => {
    const loads: string[][] = [];
    const lookup = new BatchedLookup<string>(async (keys) => {
      loads.push(keys);
      return new Map(
        keys.filter((key) => key !== 'missing').map((key) => [key, `value of ${key}`]),
      );
    });
    const answers = await Promise.all(['a', 'b', 'a', 'missing'].map((key) => lookup.get(key)));
    expect(answers).toEqual(['value of a', 'value of b', 'value of a', null]);
    expect(loads).toEqual([['a', 'b', 'missing']]);
  });

  it('fails every look-up of a batch whose load failed, and loads the next batch anew', async () => {
    let fail = true;
    const lookup = new BatchedLookup<number>(async (keys) => {
      if (fail) throw new Error('server gone');
      return new Map(keys.map((key) => [key, key.length]));
    });
    const failed = await Promise.allSettled([lookup.get('x'), lookup.get('yy')]);
    expect(failed.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await lookup.get('zzz')).toBe(3);
  });
});

describe('TenantRepository.findByUnique', () => {
  let mongo: Connection;
  let repo: TenantRepository<CustomerRecord>;

  beforeAll(async () => {
    mongo = await connectMongo(process.env.MONGO_URL!, `batched_lookup_${Date.now()}`);
    const schema = new Schema<CustomerRecord>(
      {
        _id: String,
        merchant_id: String,
        customer_key: String,
        name: String,
        created_at: Date,
        pending_events: Schema.Types.Mixed,
      },
      { versionKey: false },
    );
    schema.index({ merchant_id: 1, customer_key: 1 }, { unique: true });
    const model = mongo.model<CustomerRecord>('Customer', schema, 'customers');
    await model.init();
    repo = new TenantRepository(model);
    const record = (merchant: string, key: string, name: string) => ({
      _id: `${merchant}-${key}`,
      merchant_id: merchant,
      customer_key: key,
      name,
      created_at: new Date(),
      pending_events: [],
    });
    await model.insertMany([
      record('m1', 'customer:1', 'one of m1'),
      record('m1', 'customer:2', 'two of m1'),
      record('m2', 'customer:1', 'one of m2'),
      record('m1', 'customer:"quoted",comma', 'odd key of m1'),
    ]);
  });

  afterAll(async () => {
    await mongo.dropDatabase().catch(() => undefined);
    await mongo.close();
  });

  it('finds each merchant its own record when look-ups of several merchants come together', async () => {
    const asked: [string, string][] = [
      ['m1', 'customer:1'],
      ['m2', 'customer:1'],
      ['m1', 'customer:2'],
      ['m2', 'customer:2'],
      ['m3', 'customer:1'],
      ['m1', 'customer:"quoted",comma'],
      ['m1', 'customer:1'],
    ];
    const found = await Promise.all(
      asked.map(([merchant, key]) => repo.findByUnique(merchant, 'customer_key', key)),
    );
    expect(found.map((record) => record?.name ?? null)).toEqual([
      'one of m1',
      'one of m2',
      'two of m1',
      null,
      null,
      'odd key of m1',
      'one of m1',
    ]);
  });

  it('sees a record written before the look-up was made', async () => {
    expect(await repo.findByUnique('m2', 'customer_key', 'customer:9')).toBeNull();
    await repo.model.create({
      _id: 'm2-9',
      merchant_id: 'm2',
      customer_key: 'customer:9',
      name: 'nine of m2',
      created_at: new Date(),
      pending_events: [],
    });
    expect((await repo.findByUnique('m2', 'customer_key', 'customer:9'))?.name).toBe('nine of m2');
  });
});
