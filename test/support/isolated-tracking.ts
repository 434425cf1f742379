/**
 * For end-to-end tests of tracking over a large history: an isolated system (isolated-system.ts)
 * of the test file's own, with a connection to its tracking database to seed referrals into.
 */
import mongoose from 'mongoose';
import { seedReferrals } from '@aff/devstack';
import { api } from './http';
import { startIsolatedSystem, type IsolatedSystem } from './isolated-system';
import type { TestMerchant } from './merchant';

export interface IsolatedTracking {
  isolated: IsolatedSystem;
  /** The isolated system's tracking database. */
  connection: mongoose.Connection;
}

/**
 * Started before the file's tests (up to 2 minutes), closed and stopped after them. The fields
 * are set by that `beforeAll`, so read them inside tests and hooks.
 */
export function isolatedTrackingPerFile(
  opts: Parameters<typeof startIsolatedSystem>[0] = {},
): IsolatedTracking {
  const sys = {} as IsolatedTracking;
  beforeAll(async () => {
    sys.isolated = await startIsolatedSystem(opts);
    sys.connection = await mongoose
      .createConnection(sys.isolated.infra.mongoUrl, {
        dbName: `${sys.isolated.databasePrefix}tracking`,
      })
      .asPromise();
  }, 120_000);
  afterAll(async () => {
    await sys.connection?.close();
    await sys.isolated?.stop();
  });
  return sys;
}

/** A new affiliate of `merchant` through the gateway at `gatewayUrl`, in the default campaign. */
export async function affiliateThrough(
  gatewayUrl: string,
  merchant: TestMerchant,
  name: { first_name: string; last_name: string; emailTag: string },
) {
  const res = await api(merchant.api_secret, gatewayUrl).post('/v1/affiliates', {
    first_name: name.first_name,
    last_name: name.last_name,
    email: `${name.emailTag}-${Date.now()}-${Math.random()}@example.com`,
  });
  expect(res.status).toBe(200);
  return res.body as {
    id: string;
    campaign: { id: string };
    links: { id: string; token: string }[];
  };
}

/** `count` referrals of `merchant` through the affiliate's first link, written as tracking writes them. */
export function seedHistory(
  sys: IsolatedTracking,
  merchant: TestMerchant,
  affiliate: Awaited<ReturnType<typeof affiliateThrough>>,
  count: number,
) {
  return seedReferrals(
    sys.connection.db!,
    {
      merchantId: merchant.merchant_id,
      affiliateId: affiliate.id,
      campaignId: affiliate.campaign.id,
      linkId: affiliate.links[0]!.id,
    },
    { count },
  );
}
