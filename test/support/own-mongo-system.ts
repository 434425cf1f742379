/**
 * For fault tests that kill a service process: an isolated system (isolated-system.ts) on a
 * MongoDB-protocol server of its own too, so no process of the shared system or of another fault
 * test can take its work over, and a merchant of that system.
 */
import { startInfra, type Infra } from '@aff/devstack';
import { startIsolatedSystem, type IsolatedSystem } from './isolated-system';
import { createMerchant, type TestMerchant } from './merchant';

export interface OwnMongoSystem {
  mongo: Infra;
  isolated: IsolatedSystem;
  merchant: TestMerchant;
}

/**
 * Started (with `env` for its services) before the tests of the block it is called in, stopped
 * after them. The fields are set by that `beforeAll`, so read them inside tests and hooks.
 */
export function ownMongoSystemPerBlock(env: NodeJS.ProcessEnv): OwnMongoSystem {
  const sys = {} as OwnMongoSystem;
  beforeAll(async () => {
    sys.mongo = await withEnv({ MONGO_URL: undefined }, () => startInfra({ containers: false }));
    await withEnv({ MONGO_URL: sys.mongo.mongoUrl }, async () => {
      sys.isolated = await startIsolatedSystem({ env });
      sys.merchant = await createMerchant({ rateLimit: 5000 });
    });
  });
  afterAll(async () => {
    await sys.isolated?.stop();
    await sys.mongo?.stop();
  });
  return sys;
}

/** Runs `work` with some environment variables changed (this worker runs one test at a time). */
async function withEnv<T>(vars: Record<string, string | undefined>, work: () => Promise<T>) {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
  apply(vars);
  try {
    return await work();
  } finally {
    apply(saved);
  }
}
