/**
 * Steps of the money flow as a merchant's code, its site and its payment processor would drive
 * them: the merchant's calls through the typed client (`@aff/client`), the page's visit and the
 * processor's signed events as raw HTTP (the client covers the merchant's API only).
 */
import { randomUUID } from 'node:crypto';
import type { CommissionView } from '@aff/contracts';
import type { OperationInput } from '@aff/client';
import { merchantClient } from './client';
import { request } from './http';
import type { TestMerchant } from './merchant';
import { eventually, sendProcessorEvent } from './processor';

/** List filters of `GET /v1/commissions` besides the affiliate (`{ 'state[]': ['due'] }`). */
export type CommissionFilters = Omit<OperationInput<'listCommissions'>, 'affiliate_id'>;

/** A new affiliate; a create always shows its campaign and first link (the types leave them optional). */
export async function createAffiliate(merchant: TestMerchant, fields: Record<string, string> = {}) {
  const affiliate = await merchantClient(merchant.api_secret).affiliates.create({
    first_name: 'Aff',
    last_name: 'Iliate',
    email: `aff-${randomUUID()}@example.com`,
    ...fields,
  });
  const { campaign, links } = affiliate;
  if (!campaign || !links) throw new Error(`affiliate without campaign or links: ${affiliate.id}`);
  return { ...affiliate, campaign, links };
}

export async function visitOf(merchant: TestMerchant, token: string): Promise<string> {
  const res = await request('POST', '/t/v1/visits', { json: { key: merchant.public_key, token } });
  if (res.status !== 200 || !res.body.referral)
    throw new Error(`visit: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.referral.id;
}

/** Visit, then the processor reports the customer with the referral id: a lead with a customer. */
export async function referredCustomer(
  merchant: TestMerchant,
  affiliate: any,
  email = `cust-${randomUUID()}@example.com`,
) {
  const referralId = await visitOf(merchant, affiliate.links[0].token);
  const customerId = `cus_${randomUUID()}`;
  const res = await sendProcessorEvent(merchant, 'customer.created', {
    id: customerId,
    email,
    name: 'Cus Tomer',
    metadata: { referral: referralId },
  });
  if (res.status !== 200) throw new Error(`customer: ${res.status}`);
  const client = merchantClient(merchant.api_secret);
  await eventually(async () => {
    const page = await client.referrals.list({ processor_customer_id: customerId });
    return page.data.length === 1 ? true : undefined;
  });
  return { referralId, customerId, email };
}

export async function charge(
  merchant: TestMerchant,
  customerId: string,
  fields: {
    amount?: number;
    tax?: number;
    currency?: string;
    id?: string;
    created?: number;
    amount_refunded?: number;
  } = {},
  opts: { eventId?: string; type?: string } = {},
) {
  const object = {
    id: fields.id ?? `ch_${randomUUID()}`,
    customer: customerId,
    amount: fields.amount ?? 10_000,
    amount_refunded: fields.amount_refunded ?? 0,
    currency: fields.currency ?? 'usd',
    created: fields.created ?? Math.floor(Date.now() / 1000),
    invoice: 'in_1',
    tax: fields.tax ?? 0,
    metadata: {},
  };
  const res = await sendProcessorEvent(merchant, opts.type ?? 'charge.succeeded', object, {
    id: opts.eventId,
  });
  if (res.status !== 200) throw new Error(`charge: ${res.status} ${JSON.stringify(res.body)}`);
  return { chargeId: object.id, object, eventId: res.eventId };
}

export async function commissionsOf(
  merchant: TestMerchant,
  affiliateId: string,
  filters: CommissionFilters = {},
): Promise<CommissionView[]> {
  const page = await merchantClient(merchant.api_secret).commissions.list({
    affiliate_id: affiliateId,
    ...filters,
  });
  return page.data;
}

/** Waits until the affiliate has `count` commissions matching `predicate`. */
export async function waitForCommissions(
  merchant: TestMerchant,
  affiliateId: string,
  predicate: (list: CommissionView[]) => boolean,
  filters: CommissionFilters = {},
): Promise<CommissionView[]> {
  return eventually(async () => {
    const list = await commissionsOf(merchant, affiliateId, filters);
    return predicate(list) ? list : undefined;
  });
}

/** A referred customer charged once, and the commission that charge earned, once it is due. */
export async function dueCommissionOf(merchant: TestMerchant, affiliate: any, amount: number) {
  const customer = await referredCustomer(merchant, affiliate);
  await charge(merchant, customer.customerId, { amount });
  const [commission] = await waitForCommissions(
    merchant,
    affiliate.id,
    (list) => list.length === 1 && list[0].state === 'due',
  );
  return { ...customer, commission };
}

/** The affiliate's payout, generated once the payout service has seen the due commission's event. */
export function generatedPayout(merchant: TestMerchant, affiliateId: string): Promise<any> {
  const client = merchantClient(merchant.api_secret);
  return eventually(async () => {
    const run = await client.payouts.generate({ affiliate_id: affiliateId });
    return run.data[0];
  });
}
