/** A whole journey for one affiliate (visit, lead, charge, commission, paid payout), for portal tests. */
import { api, request } from './http';
import { createAffiliate, dueCommissionOf, generatedPayout, visitOf } from './journey';
import type { TestMerchant } from './merchant';
import { eventually } from './processor';

export async function campaignPayingAtOnce(merchant: TestMerchant): Promise<string> {
  const res = await api(merchant.api_secret).post('/v1/campaigns', {
    name: `Pays at once ${Date.now()}`,
    commission_percent: '10',
    days_until_commissions_are_due: '0',
  });
  if (res.status !== 200) throw new Error(`campaign: ${res.status}`);
  return res.body.id;
}

export interface JourneyResult {
  affiliate: any;
  referralId: string;
  customerEmail: string;
  commissionId: string;
  payoutId: string;
}

/**
 * An extra plain visit, then a referred customer who pays `amount` cents: one due commission
 * (10 %), bundled into a payout that the merchant pays.
 */
export async function paidJourney(
  merchant: TestMerchant,
  campaignId: string,
  fields: Record<string, string> = {},
  amount = 20_000,
): Promise<JourneyResult> {
  const client = api(merchant.api_secret);
  const affiliate = await createAffiliate(merchant, { campaign_id: campaignId, ...fields });
  await visitOf(merchant, affiliate.links[0].token);
  const { referralId, email, commission } = await dueCommissionOf(merchant, affiliate, amount);
  const payout = await generatedPayout(merchant, affiliate.id);
  const paid = await request('PUT', `/v1/payouts/${payout.id}/pay`, {
    secret: merchant.api_secret,
  });
  if (paid.status !== 200) throw new Error(`pay: ${paid.status}`);
  // Wait until the payout's events reached the commission and the counters.
  await eventually(async () => {
    const [c, a] = await Promise.all([
      client.get(`/v1/commissions/${commission.id}`),
      client.get(`/v1/affiliates/${affiliate.id}`),
    ]);
    return c.body.state === 'paid' && a.body.conversions === 1 && a.body.visitors === 2
      ? true
      : undefined;
  }, 30_000);
  return {
    affiliate,
    referralId,
    customerEmail: email,
    commissionId: commission.id,
    payoutId: payout.id,
  };
}
