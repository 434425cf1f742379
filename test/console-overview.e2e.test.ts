/**
 * The console's overview through the real gateway, after real traffic (visits, customers,
 * charges, a held referral): its figures equal the affiliates' stored counters and
 * commission_stats added up (as the REST API shows them), and are read from the owners' kept
 * counts (tracking's merchant document, the commission service's merchant commission_stats,
 * the affiliate service's count by state); the open
 * reviews count, the top affiliates; the last 30 days come from web's daily readings; nothing of
 * another tenant shows.
 */
import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { formatMoney } from '@aff/api';
import { merchantClient } from './support/client';
import { api } from './support/http';
import { charge, createAffiliate, referredCustomer, visitOf } from './support/journey';
import { createMerchant, type TestMerchant } from './support/merchant';
import { consoleRequest, followLink, invite } from './support/console';
import { eventually } from './support/processor';

let merchant: TestMerchant;
let webDb: mongoose.Connection;
let cookie: string;
const names = { a1: `Topper${randomUUID().slice(0, 8)}`, a2: `Second${randomUUID().slice(0, 8)}` };
let a1: Awaited<ReturnType<typeof createAffiliate>>;
let a2: Awaited<ReturnType<typeof createAffiliate>>;

const day = (offset: number) =>
  new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const stat = (text: string, key: string) =>
  new RegExp(`data-stat="${key}">\\s*([^<]*?)\\s*<`).exec(text)?.[1];
/** The money cells of a currency's row in the table named `label`. */
function moneyRow(text: string, label: string, currency: string): string[] {
  const table = text.slice(text.indexOf(`aria-label="${label}"`));
  const row = new RegExp(`data-currency="${currency}"[\\s\\S]*?</tr>`).exec(table)?.[0] ?? '';
  return [...row.matchAll(/<td class="num">([^<]*)<\/td>/g)].map((m) => m[1]!);
}

async function signedIn(m: TestMerchant, role: 'owner' | 'viewer' = 'owner') {
  const invited = await invite(m.merchant_id, `ov-${randomUUID()}@example.com`, role);
  return (await followLink(invited.sign_in_url)).cookie;
}

/** The REST API's own view of the program: every affiliate with its commission_stats. */
async function restAffiliates(m: TestMerchant) {
  const res = await api(m.api_secret).get('/v1/affiliates?limit=100&expand=commission_stats');
  expect(res.status).toBe(200);
  return res.body.data as any[];
}

beforeAll(async () => {
  merchant = await createMerchant({ rateLimit: 100_000 });
  webDb = await mongoose.createConnection(process.env.MONGO_URL!, { dbName: 'web' }).asPromise();
  a1 = await createAffiliate(merchant, { first_name: names.a1 });
  const holding = await merchantClient(merchant.api_secret).campaigns.create({
    name: `Holds ${randomUUID()}`,
    fraud_policy: { disposable_email: 'hold' },
  } as never);
  a2 = await createAffiliate(merchant, { first_name: names.a2, campaign_id: holding.id });
  await createAffiliate(merchant, { first_name: 'Quiet' });
  // a1: two customers charged in USD and one more visitor; a2: a held customer charged in EUR.
  const c1 = await referredCustomer(merchant, a1);
  const c2 = await referredCustomer(merchant, a1);
  await visitOf(merchant, a1.links[0].token);
  await charge(merchant, c1.customerId, { amount: 10_000 });
  await charge(merchant, c2.customerId, { amount: 2_000 });
  const c3 = await referredCustomer(merchant, a2, `${randomUUID()}@mailinator.com`);
  await charge(merchant, c3.customerId, { amount: 5_000, currency: 'eur' });
  // The counters are derived from events: wait until the REST API shows all of it.
  await eventually(async () => {
    const all = await restAffiliates(merchant);
    const usd = all.find((a) => a.id === a1.id)?.commission_stats?.currencies?.USD;
    const eur = all.find((a) => a.id === a2.id)?.commission_stats?.currencies?.EUR;
    const sum = all.reduce((n, a) => n + a.visitors + a.leads + a.conversions, 0);
    return usd?.gross_revenue.cents === 12_000 && eur?.gross_revenue.cents === 5_000 && sum === 10
      ? true
      : undefined;
  }, 30_000);
  cookie = await signedIn(merchant);
}, 120_000);
afterAll(async () => {
  await webDb?.close();
});

it('/console is the overview (no redirect), with the navigation of every section', async () => {
  const page = await consoleRequest('/console', { cookie });
  expect(page.status).toBe(200);
  expect(page.text).toContain('<h2 id="total-h">Program to date</h2>');
  expect(page.text).toMatch(/href="\/console" aria-current="page"/);
  for (const path of ['affiliates', 'reviews', 'commissions', 'payouts', 'webhooks', 'campaigns'])
    expect(page.text).toContain(`href="/console/${path}"`);
});

it("shows the program's counters, commissions by state and revenue as the REST API has them", async () => {
  const page = await consoleRequest('/console', { cookie });
  expect(stat(page.text, 'visitors')).toBe('4');
  expect(stat(page.text, 'leads')).toBe('3');
  expect(stat(page.text, 'conversions')).toBe('3');
  expect(stat(page.text, 'affiliates')).toBe('3');
  expect(stat(page.text, 'open-reviews')).toBe('1');
  const rest = await restAffiliates(merchant);
  for (const currency of ['USD', 'EUR']) {
    const s = (key: string) =>
      rest.reduce((n, a) => n + (a.commission_stats.currencies[currency]?.[key].cents ?? 0), 0);
    const expected = [
      s('unpaid') - s('due'),
      s('due'),
      s('paid'),
      s('total'),
      s('gross_revenue'),
      s('net_revenue'),
    ].map((cents) => formatMoney(cents, currency));
    expect(moneyRow(page.text, 'Commissions by state per currency', currency)).toEqual(expected);
  }
  // Known amounts: the USD charges' revenue, and commissions were earned (held ones included).
  expect(moneyRow(page.text, 'Commissions by state per currency', 'USD')[4]).toBe('$120.00');
  expect(s0(rest, 'EUR', 'total')).toBeGreaterThan(0);
  // Top affiliates: most conversions first.
  const top = page.text.slice(page.text.indexOf('aria-label="Top affiliates by conversions"'));
  expect(top.indexOf(names.a1)).toBeGreaterThan(0);
  expect(top.indexOf(names.a1)).toBeLessThan(top.indexOf(names.a2));
  expect(top).toContain(`href="/console/affiliates/${a1.id}"`);
});

it('top affiliates: read from the kept list, rebuilt from the affiliates when it is missing', async () => {
  const topOf = async () => {
    const page = await consoleRequest('/console', { cookie });
    const top = page.text.slice(page.text.indexOf('aria-label="Top affiliates by conversions"'));
    return [top.indexOf(names.a1), top.indexOf(names.a2)];
  };
  expect(await topOf()).toEqual([expect.any(Number), expect.any(Number)]);
  const kept = webDb.useDb('affiliate').collection('affiliate_top');
  const id = merchant.merchant_id as never;
  const doc = (await kept.findOne({ _id: id }))!;
  expect(doc).toMatchObject({
    built: true,
    top: [
      { id: a1.id, conversions: 2 },
      { id: a2.id, conversions: 1 },
    ],
  });
  // The list's two entries swapped (each still with its affiliate's count): a page that sorted
  // the affiliates would not show this order; the overview shows the list's.
  await kept.updateOne({ _id: id }, { $set: { top: [doc.top[1], doc.top[0]] } });
  const [first, second] = await topOf();
  expect(second).toBeGreaterThan(0);
  expect(second).toBeLessThan(first!);
  // No list (a merchant from before it was kept): the sorted read answers and builds it.
  await kept.deleteOne({ _id: id });
  const [again1, again2] = await topOf();
  expect(again1).toBeGreaterThan(0);
  expect(again1).toBeLessThan(again2!);
  expect(await kept.findOne({ _id: id })).toMatchObject({
    built: true,
    top: [{ id: a1.id }, { id: a2.id }],
  });
});

function s0(rest: any[], currency: string, key: string): number {
  return rest.reduce((n, a) => n + (a.commission_stats.currencies[currency]?.[key].cents ?? 0), 0);
}

it('the last 30 days: what the totals grew by since the oldest daily reading in the window', async () => {
  const zero = { visitors: 0, leads: 0, conversions: 0, commission_stats: { currencies: {} } };
  const huge = { ...zero, visitors: 1_000_000 };
  // History started today (the first view took today's reading): no window figures yet.
  const first = await consoleRequest('/console', { cookie });
  expect(first.text).toContain('history starts today');
  const readings = webDb.collection('console_stat_days');
  const today = await readings.findOne({ _id: `${merchant.merchant_id}:${day(0)}` as never });
  expect(today?.totals).toMatchObject({ visitors: 4, leads: 3, conversions: 3 });
  // A reading five days ago (before the traffic) and one outside the window.
  for (const [offset, totals] of [
    [-5, zero],
    [-40, huge],
  ] as const) {
    await readings.insertOne({
      _id: `${merchant.merchant_id}:${day(offset)}` as never,
      merchant_id: merchant.merchant_id,
      day: day(offset),
      at: new Date(Date.now() + offset * 86_400_000),
      totals,
    });
  }
  const page = await consoleRequest('/console', { cookie });
  expect(page.text).toContain(`Since ${day(-5)}`);
  expect(stat(page.text, 'window-visitors')).toBe('4');
  expect(stat(page.text, 'window-conversions')).toBe('3');
  expect(moneyRow(page.text, 'Revenue and commissions, last 30 days', 'USD')[0]).toBe('$120.00');
  expect(page.text).toContain(`4 visitors, 3 leads, 3 conversions from ${day(-5)} to ${day(0)}.`);
  // More traffic today: the window and today's bar grow; the readings do not change.
  await visitOf(merchant, a2.links[0].token);
  const later = await eventually(async () => {
    const again = await consoleRequest('/console', { cookie });
    return stat(again.text, 'window-visitors') === '5' ? again : undefined;
  });
  expect(stat(later.text, 'visitors')).toBe('5');
  expect(later.text).toMatch(
    new RegExp(`<title>${day(0)}: 1 visitors, 0 leads, 0 conversions</title>`),
  );
  expect(
    await readings.findOne({ _id: `${merchant.merchant_id}:${day(0)}` as never }),
  ).toMatchObject({
    totals: { visitors: 4 },
  });
});

it('a viewer sees the overview; bad query values are ignored', async () => {
  const viewer = await signedIn(merchant, 'viewer');
  const page = await consoleRequest('/console?page=-1&sort=%3Cscript%3E&state[x]=1', {
    cookie: viewer,
  });
  expect(page.status).toBe(200);
  expect(stat(page.text, 'conversions')).toBe('3');
});

it('active affiliates: the kept count by state follows each change of state', async () => {
  const quiet = (await restAffiliates(merchant)).find((a) => a.first_name === 'Quiet');
  const setState = async (state: string) =>
    expect(
      (await api(merchant.api_secret).put(`/v1/affiliates/${quiet.id}`, { state })).status,
    ).toBe(200);
  await setState('disabled');
  expect(stat((await consoleRequest('/console', { cookie })).text, 'affiliates')).toBe('2');
  await setState('disabled'); // no change of state: nothing moves
  await setState('suspicious');
  expect(stat((await consoleRequest('/console', { cookie })).text, 'affiliates')).toBe('2');
  await setState('active');
  expect(stat((await consoleRequest('/console', { cookie })).text, 'affiliates')).toBe('3');
  const affiliateDb = webDb.useDb('affiliate');
  expect(
    await affiliateDb
      .collection('affiliate_state_counts')
      .findOne({ _id: merchant.merchant_id as never }),
  ).toMatchObject({ active: 3, disabled: 0, suspicious: 0 });
});

it('reads the kept counts, not the records: the figures are the count documents', async () => {
  // A merchant with no affiliate and no referral whose count documents say otherwise: the page
  // shows the documents (a page that counted records would show zeros).
  const other = await createMerchant({ rateLimit: 100_000 });
  const id = other.merchant_id as never;
  const db = (name: string) => webDb.useDb(name);
  await db('tracking')
    .collection('merchant_referral_counts')
    .insertOne({ _id: id, merchant_id: other.merchant_id, visitors: 7, leads: 5, conversions: 2 });
  await db('affiliate')
    .collection('affiliate_state_counts')
    .insertOne({ _id: id, active: 4, disabled: 1, suspicious: 0 });
  await db('commission')
    .collection('merchant_commission_stats')
    .insertOne({
      _id: id,
      merchant_id: other.merchant_id,
      currencies: { USD: { paid: 1_234, total: 1_234, gross_revenue: 9_000, net_revenue: 8_000 } },
    });
  const page = await consoleRequest('/console', { cookie: await signedIn(other) });
  expect([
    stat(page.text, 'visitors'),
    stat(page.text, 'leads'),
    stat(page.text, 'conversions'),
  ]).toEqual(['7', '5', '2']);
  expect(stat(page.text, 'affiliates')).toBe('4');
  expect(moneyRow(page.text, 'Commissions by state per currency', 'USD')).toEqual([
    '$0.00',
    '$0.00',
    '$12.34',
    '$12.34',
    '$90.00',
    '$80.00',
  ]);
  // A merchant without a state count yet (affiliates from before it was kept): counted once.
  const third = await createMerchant({ rateLimit: 100_000 });
  await createAffiliate(third, { first_name: 'Counted' });
  await db('affiliate')
    .collection('affiliate_state_counts')
    .deleteOne({ _id: third.merchant_id as never });
  const counted = await consoleRequest('/console', { cookie: await signedIn(third) });
  expect(stat(counted.text, 'affiliates')).toBe('1');
  expect(
    await db('affiliate')
      .collection('affiliate_state_counts')
      .findOne({ _id: third.merchant_id as never }),
  ).toMatchObject({ active: 1 });
});

it("shows nothing of another tenant's program", async () => {
  const other = await createMerchant({ rateLimit: 100_000 });
  const page = await consoleRequest('/console', { cookie: await signedIn(other) });
  expect(page.status).toBe(200);
  expect(stat(page.text, 'visitors')).toBe('0');
  expect(stat(page.text, 'open-reviews')).toBe('0');
  expect(page.text).not.toContain(names.a1);
  expect(page.text).toContain('No affiliates yet.');
});
