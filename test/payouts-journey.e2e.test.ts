/**
 * The whole money flow through the real services: a referred customer pays, the commission
 * service makes a due commission, a payout bundles it, the merchant pays the payout, and the
 * commission service records the commission as paid from the payout's events.
 */
import { merchantClient } from './support/client';
import { createAffiliate, dueCommissionOf, generatedPayout } from './support/journey';
import { createMerchant } from './support/merchant';
import { eventually } from './support/processor';

it('pays a commission earned by a referred customer through a payout', async () => {
  const merchant = await createMerchant({ rateLimit: 5000 });
  // Calls that resolve were answered 200: the client's fetch rejects undocumented statuses.
  const client = merchantClient(merchant.api_secret);
  const campaign = await client.campaigns.create({
    name: 'Pays at once',
    commission_percent: 10,
    days_until_commissions_are_due: 0,
  });
  const affiliate = await createAffiliate(merchant, { campaign_id: campaign.id });
  const { commission } = await dueCommissionOf(merchant, affiliate, 10_000);

  // The payout service sees the commission once it has consumed the commission's event.
  const payout = await generatedPayout(merchant, affiliate.id);
  expect(payout).toMatchObject({ currency: 'USD', amount: 1000, state: 'due' });
  expect(payout.affiliate.id).toBe(affiliate.id);
  expect(payout.commissions.map((c: any) => c.id)).toEqual([commission.id]);

  const paid = await client.payouts.pay({ id: payout.id });
  const settled = await eventually(async () => {
    const res = await client.commissions.get({ id: commission.id });
    return res.state === 'paid' ? res : undefined;
  });
  expect(settled.paid_at).toBe(paid.paid_at);
  const final = await eventually(async () => {
    const res = await client.payouts.get({ id: payout.id });
    return res.state === 'paid' ? res : undefined;
  });
  expect(final.commissions![0]).toMatchObject({ state: 'paid', paid_at: paid.paid_at });
});
