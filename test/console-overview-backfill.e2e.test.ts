/**
 * The overview's chart for days before its first daily reading, through the real gateway and
 * every service: a merchant whose referrals are older than its first reading gets, on its first
 * view, readings derived from tracking's referral dates (getReferralHistory) for the days of the
 * window without one, so the chart has bars for them, while the money figures still start at the
 * first real reading. The backfill runs once per merchant: a second view does not call it again.
 */
import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { connect } from '@nats-io/transport-node';
import { HEADERS, rpcSubject } from '@aff/contracts';
import type { NatsConnection } from '@aff/messaging';
import { api } from './support/http';
import { charge, createAffiliate, referredCustomer, visitOf } from './support/journey';
import { createMerchant, type TestMerchant } from './support/merchant';
import { consoleRequest, followLink, invite } from './support/console';
import { eventually } from './support/processor';

let merchant: TestMerchant;
let db: mongoose.Connection;
let nc: NatsConnection;
/** getReferralHistory requests seen for the test's merchant (a plain subscriber gets a copy). */
let historyCalls = 0;

const day = (offset: number) =>
  new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
/** A time of day `offset` days from today (UTC). */
const at = (offset: number, time: string) => new Date(`${day(offset)}T${time}Z`);
const stat = (text: string, key: string) =>
  new RegExp(`data-stat="${key}">\\s*([^<]*?)\\s*<`).exec(text)?.[1];
const bar = (d: string, [v, l, c]: number[]) =>
  `<title>${d}: ${v} visitors, ${l} leads, ${c} conversions</title>`;
const readings = () => db.useDb('web').collection('console_stat_days');

beforeAll(async () => {
  merchant = await createMerchant({ rateLimit: 100_000 });
  db = await mongoose.createConnection(process.env.MONGO_URL!, { dbName: 'web' }).asPromise();
  nc = await connect({ servers: process.env.NATS_URL });
  nc.subscribe(rpcSubject('tracking', 'getReferralHistory'), {
    callback: (_error, msg) => {
      if (msg.headers?.get(HEADERS.merchantId) === merchant.merchant_id) historyCalls++;
    },
  });
  // Three referrals: two customers (leads), one charged (a conversion), and one more visitor.
  const affiliate = await createAffiliate(merchant, { first_name: 'Backfilled' });
  const first = await referredCustomer(merchant, affiliate);
  const second = await referredCustomer(merchant, affiliate);
  const third = await visitOf(merchant, affiliate.links[0].token);
  await charge(merchant, first.customerId, { amount: 10_000 });
  await eventually(async () => {
    const res = await api(merchant.api_secret).get('/v1/affiliates?expand=commission_stats');
    const a = res.body.data?.find((x: { id: string }) => x.id === affiliate.id);
    const usd = a?.commission_stats?.currencies?.USD;
    return a?.conversions === 1 && a.visitors === 3 && usd?.gross_revenue.cents === 10_000
      ? true
      : undefined;
  }, 30_000);
  // Their history, as if made before the console was opened (tracking's own records).
  const referrals = db.useDb('tracking').collection('referrals');
  const dated = async (id: string, fields: Record<string, Date>) =>
    referrals.updateOne({ _id: id as never, merchant_id: merchant.merchant_id }, { $set: fields });
  await dated(first.referralId, {
    created_at: at(-6, '10:00:00'),
    became_lead_at: at(-6, '10:05:00'),
    became_conversion_at: at(-4, '12:00:00'),
  });
  await dated(second.referralId, {
    created_at: at(-3, '09:00:00'),
    became_lead_at: at(-2, '09:00:00'),
  });
  expect(third).toBeTruthy(); // made today: in no past midnight
  // The console's first real reading, two days ago (no money yet then).
  await readings().insertOne({
    _id: `${merchant.merchant_id}:${day(-2)}` as never,
    merchant_id: merchant.merchant_id,
    day: day(-2),
    at: at(-2, '00:30:00'),
    totals: { visitors: 2, leads: 1, conversions: 1, commission_stats: { currencies: {} } },
  });
}, 120_000);
afterAll(async () => {
  await nc?.close();
  await db?.close();
});

it('derives the chart of the days before the first reading; the money starts at that reading', async () => {
  const invited = await invite(merchant.merchant_id, `bf-${randomUUID()}@example.com`, 'owner');
  const { cookie } = await followLink(invited.sign_in_url);
  const page = await consoleRequest('/console', { cookie });
  expect(page.status).toBe(200);
  expect(historyCalls).toBe(1);
  // The window starts the day of the first referral (its midnight: nothing yet).
  expect(page.text).toContain(`Since ${day(-6)}`);
  expect(page.text).toContain('counted from the referrals');
  expect([
    stat(page.text, 'window-visitors'),
    stat(page.text, 'window-leads'),
    stat(page.text, 'window-conversions'),
  ]).toEqual(['3', '2', '1']);
  for (const [d, values] of [
    [day(-6), [1, 1, 0]], // derived: the first referral and its lead
    [day(-5), [0, 0, 0]],
    [day(-4), [0, 0, 1]], // derived: its conversion
    [day(-3), [1, 0, 0]], // derived → the real reading: the second referral
    [day(-2), [0, 1, 0]], // the real reading → derived: its lead
    [day(-1), [1, 0, 0]], // derived → today's reading: today's visitor
  ] as const)
    expect(page.text).toContain(bar(d, [...values]));
  // The money of the derived days cannot be recovered: it starts at the first real reading.
  expect(page.text).toMatch(
    new RegExp(`data-window="money-since">\\s*Revenue and commissions: since ${day(-2)}`),
  );
  const usd = page.text.slice(page.text.indexOf('aria-label="Revenue and commissions, last 30'));
  expect(usd).toMatch(/data-currency="USD"[\s\S]*?<td class="num">\$100\.00<\/td>/);

  // Stored: derived readings of the three figures only; the real reading stays as it was.
  const stored = await readings()
    .find({ merchant_id: merchant.merchant_id, day: { $in: [day(-6), day(-2), day(-1)] } })
    .sort({ day: 1 })
    .toArray();
  expect(stored.map((r) => [r.day, r.derived ?? false, r.totals])).toEqual([
    [day(-6), true, { visitors: 0, leads: 0, conversions: 0 }],
    [day(-2), false, expect.objectContaining({ visitors: 2, leads: 1, conversions: 1 })],
    [day(-1), true, { visitors: 2, leads: 2, conversions: 1 }],
  ]);
});

it('backfills once: a later view calls tracking no more and does not restore a reading', async () => {
  await eventually(async () => (historyCalls >= 1 ? true : undefined));
  await readings().deleteOne({ _id: `${merchant.merchant_id}:${day(-5)}` as never });
  const invited = await invite(merchant.merchant_id, `bf2-${randomUUID()}@example.com`, 'viewer');
  const { cookie } = await followLink(invited.sign_in_url);
  const again = await consoleRequest('/console', { cookie });
  expect(again.status).toBe(200);
  expect(again.text).toContain(`Since ${day(-6)}`);
  await new Promise((resolve) => setTimeout(resolve, 300)); // a copy in flight would arrive
  expect(historyCalls).toBe(1);
  expect(
    await readings().findOne({ _id: `${merchant.merchant_id}:${day(-5)}` as never }),
  ).toBeNull();
});
