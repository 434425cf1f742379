/**
 * `GET /v1/referrals?limit=25` in a fresh tenant with few and with many referrals: a list must
 * not slow down as a merchant's history grows.
 */
import autocannon from 'autocannon';
import { measure, type Measurement } from './measure';
import { prepareAffiliate, type BenchMerchant } from './money-bench';
import { waitFor } from './charge-bench';
import { settleCpu } from './settle';

export interface ReferralListFigures {
  small: Measurement & { referrals: number };
  large: Measurement & { referrals: number };
}

export async function benchReferralList(
  gatewayUrl: string,
  merchant: BenchMerchant,
  opts: {
    small: number;
    large: number;
    connections: number;
    durationSeconds: number;
    log?: (line: string) => void;
  },
): Promise<ReferralListFigures> {
  const affiliate = await prepareAffiliate(gatewayUrl, merchant);
  const auth = `Basic ${Buffer.from(`${merchant.api_secret}:`).toString('base64')}`;
  const addVisits = async (amount: number) => {
    const result = await autocannon({
      url: `${gatewayUrl}/t/v1/visits`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: merchant.public_key, token: affiliate.links[0].token }),
      connections: opts.connections,
      amount,
    });
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`seeding referrals: ${result.non2xx} non-2xx, ${result.errors} errors`);
  };
  const total = async () => {
    const res = await fetch(`${gatewayUrl}/v1/referrals?limit=1`, {
      headers: { authorization: auth },
    });
    return ((await res.json()) as { pagination: { total_count: number } }).pagination.total_count;
  };
  // Seeding sets off work in other services (counters, webhooks) for every referral; the list
  // is measured once that has drained (the affiliate's counter has caught up), so the figure
  // shows how the list scales with the tenant's size, not the seeding's leftover load.
  const settled = async (amount: number) => {
    await waitFor(async () => (await total()) >= amount, 120_000);
    await waitFor(async () => {
      const res = await fetch(`${gatewayUrl}/v1/affiliates/${affiliate.id}`, {
        headers: { authorization: auth },
      });
      return ((await res.json()) as { visitors: number }).visitors >= amount;
    }, 300_000);
    // And whatever earlier phases left (the charge bench's commissions fan out for a while).
    const settle = await settleCpu();
    opts.log?.(
      `referral list: waited ${(settle.waitedMs / 1000).toFixed(1)} s for the machine to settle${settle.settled ? '' : ' (it did not; measuring anyway)'}`,
    );
  };
  const list = (name: string) =>
    measure(name, {
      url: `${gatewayUrl}/v1/referrals?limit=25`,
      headers: { authorization: auth },
      connections: opts.connections,
      durationSeconds: opts.durationSeconds,
    });

  await addVisits(opts.small);
  await settled(opts.small);
  const small = await list(`GET /v1/referrals?limit=25 (${opts.small} referrals)`);
  await addVisits(opts.large - opts.small);
  await settled(opts.large);
  const large = await list(`GET /v1/referrals?limit=25 (${opts.large} referrals)`);
  return {
    small: { ...small, referrals: opts.small },
    large: { ...large, referrals: opts.large },
  };
}
