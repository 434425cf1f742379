/**
 * A merchant a year in: 200,000 referrals in tracking's collection (written as the service
 * writes them, in batches). Tracking restarts with that history and serves visits of every
 * merchant at once, with memory that did not grow with it, and lists the history newest first
 * with its full count. Before, tracking loaded every referral id at start: its memory grew by
 * about 2 KB per referral and it crashed at start from 150,000 (issue 33).
 */
import fs from 'node:fs';
import { api, request } from './support/http';
import {
  affiliateThrough,
  isolatedTrackingPerFile,
  seedHistory,
} from './support/isolated-tracking';
import { createMerchant, type TestMerchant } from './support/merchant';

const HISTORY = 200_000;
/** Tracking's RSS after a start with an empty database is about 130 MB. */
const RSS_LIMIT_MB = 250;

const sys = isolatedTrackingPerFile();

const affiliateOf = (merchant: TestMerchant) =>
  affiliateThrough(sys.isolated.system.gatewayUrl, merchant, {
    first_name: 'Long',
    last_name: 'History',
    emailTag: 'history',
  });

function visit(merchant: TestMerchant, token: string) {
  return request('POST', '/t/v1/visits', {
    baseUrl: sys.isolated.system.gatewayUrl,
    json: { key: merchant.public_key, token },
  });
}

function rssMb(pid: number): number {
  const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return Number(line![1]) / 1024;
}

it('restarts tracking over 200,000 referrals of one merchant and serves visits', async () => {
  const large = await createMerchant();
  const other = await createMerchant();
  const [affiliate, otherAffiliate] = await Promise.all([affiliateOf(large), affiliateOf(other)]);
  await seedHistory(sys, large, affiliate, HISTORY);

  await sys.isolated.system.stopProcess('tracking', 'SIGKILL');
  await sys.isolated.system.startProcess('tracking');
  const tracking = sys.isolated.system.processes().find((p) => p.label === 'tracking')!;

  const [mine, theirs] = await Promise.all([
    visit(large, affiliate.links[0]!.token),
    visit(other, otherAffiliate.links[0]!.token),
  ]);
  expect(mine.status).toBe(200);
  expect(theirs.status).toBe(200);
  expect(rssMb(tracking.pid)).toBeLessThan(RSS_LIMIT_MB);

  const list = await api(large.api_secret, sys.isolated.system.gatewayUrl).get(
    '/v1/referrals?limit=25',
  );
  expect(list.status).toBe(200);
  expect(list.body.pagination.total_count).toBe(HISTORY + 1);
  expect(list.body.data).toHaveLength(25);
  expect(list.body.data[0].id).toBe(mine.body.referral.id);
  // The link's counts are its stored counters (nothing aggregated at start): the seeded history
  // (two fifths of it leads, one fifth conversions) plus the new visitor.
  expect(list.body.data[0].link).toMatchObject({
    visitors: HISTORY + 1,
    leads: (HISTORY * 2) / 5,
    conversions: HISTORY / 5,
  });
}, 240_000);
