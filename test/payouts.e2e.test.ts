/**
 * Payouts through the real gateway, with every service running as its own process. The tests
 * play the commission service: they publish well-formed commission events on JetStream and
 * wait until the payout service has consumed them; affiliates and campaigns are real.
 */
import { randomUUID } from 'node:crypto';
import {
  InvalidRequestError,
  NotFoundError,
  type Client,
  type OperationInput,
  type OperationOutput,
} from '@aff/client';
import type { AffiliateView, CommissionEventView } from '@aff/contracts';
import { merchantClient, rejection } from './support/client';
import { request } from './support/http';
import { createMerchant, type TestMerchant } from './support/merchant';
import {
  commissionView,
  eventually,
  payoutEvents,
  publishCommissionEvents,
  publishRaw,
  type CommissionFields,
} from '../services/payout/test/support/payout-fixtures';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const PAYOUT_KEYS = [
  'id',
  'currency',
  'paid_at',
  'state',
  'paid_by_id',
  'created_at',
  'updated_at',
  'amount',
];
const ENTRY_KEYS = [
  'id',
  'currency',
  'processor_account_id',
  'due_at',
  'paid_at',
  'created_at',
  'updated_at',
  'amount',
];
const ALREADY_PAID = { error: 'Could not pay payout.', details: ['Payout has already been paid'] };

/** A merchant with room for the many calls these tests make. */
const busyMerchant = () => createMerchant({ rateLimit: 5000 });

type Payout = OperationOutput<'getPayout'>;

/**
 * The merchant's typed client. Every success it answers has passed the OpenAPI check (only the
 * documented 200 gets through), so a call that resolves stands for the former `status === 200`.
 */
const clientOf = (merchant: TestMerchant): Client => merchantClient(merchant.api_secret);

async function newAffiliate(merchant: TestMerchant, campaignId?: string): Promise<AffiliateView> {
  return clientOf(merchant).affiliates.create({
    first_name: 'Pay',
    last_name: 'Ee',
    email: `payee-${randomUUID()}@example.com`,
    ...(campaignId ? { campaign_id: campaignId } : {}),
  });
}

async function campaignWithMinimum(merchant: TestMerchant, cents: number): Promise<string> {
  const campaign = await clientOf(merchant).campaigns.create({
    name: `Minimum ${cents}`,
    minimum_payout_cents: cents,
  });
  return campaign.id;
}

/** The body of a payout call's error answer, with its status (422 already paid, 404 ...). */
async function failure(call: Promise<unknown>) {
  const error = await rejection(call);
  return { status: error.status, body: error.body, error };
}

/** Commissions the commission service announces (`commission.created`), due unless said. */
async function commissions(
  merchant: TestMerchant,
  affiliate: AffiliateView,
  fields: CommissionFields[],
): Promise<CommissionEventView[]> {
  const views = fields.map((f) => commissionView(affiliate, f));
  await publishCommissionEvents(
    merchant.merchant_id,
    views.map((data) => ({ type: 'commission.created' as const, data })),
  );
  return views;
}

const ids = (list: { id: string }[]) => list.map((item) => item.id).sort();

describe('POST /v1/payouts/generate', () => {
  let merchant: TestMerchant;
  let client: Client;
  let alice: AffiliateView;
  let bob: AffiliateView;
  let aliceUsd: CommissionEventView[];
  let firstRun: OperationOutput<'generatePayouts'>;

  beforeAll(async () => {
    merchant = await busyMerchant();
    client = clientOf(merchant);
    alice = await newAffiliate(merchant);
    bob = await newAffiliate(merchant);
    aliceUsd = await commissions(merchant, alice, [{ amount: 1000 }, { amount: 500 }]);
    await commissions(merchant, alice, [
      { amount: 700, currency: 'EUR' },
      { amount: 300, state: 'pending' },
      { amount: 200, state: 'voided', voided_at: new Date() },
      { amount: 100, state: 'paid' },
    ]);
    await commissions(merchant, bob, [{ amount: 400 }]);
    firstRun = await client.payouts.generate();
  });

  const aliceUsdPayout = () =>
    firstRun.data.find((p) => p.affiliate!.id === alice.id && p.currency === 'USD')!;

  it('bundles due commissions into one payout per affiliate and currency, on one page', () => {
    expect(firstRun.pagination).toEqual({
      previous_page: null,
      current_page: 1,
      next_page: null,
      count: 3,
      limit: 25,
      total_pages: 1,
      total_count: 3,
    });
    const summary = firstRun.data
      .map((p) => `${p.affiliate!.id}/${p.currency}/${p.amount}/${p.state}`)
      .sort();
    expect(summary).toEqual(
      [`${alice.id}/USD/1500/due`, `${alice.id}/EUR/700/due`, `${bob.id}/USD/400/due`].sort(),
    );
  });

  it('answers each payout with the spec fields, its affiliate and its commissions', () => {
    const payout: any = aliceUsdPayout();
    expect(Object.keys(payout)).toEqual([...PAYOUT_KEYS, 'affiliate', 'commissions']);
    expect(payout.id).toMatch(UUID);
    expect(payout.created_at).toMatch(ISO);
    expect(payout).toMatchObject({ paid_at: null, paid_by_id: null, amount: 1500 });
    // The affiliate as nested representations show it: with its campaign, no links or stats.
    expect(payout.affiliate).toMatchObject({ id: alice.id, email: alice.email });
    expect(payout.affiliate.campaign).toMatchObject({ id: alice.campaign!.id });
    expect(payout.affiliate).not.toHaveProperty('links');
    expect(payout.affiliate).not.toHaveProperty('commission_stats');
    expect(ids(payout.commissions)).toEqual(ids(aliceUsd));
    for (const entry of payout.commissions) {
      expect(Object.keys(entry)).toEqual([...ENTRY_KEYS, 'state', 'voided_at']);
      expect(entry).toMatchObject({
        currency: 'USD',
        processor_account_id: 'acct_test',
        paid_at: null,
        state: 'due',
        voided_at: null,
      });
    }
  });

  it('publishes payout.created and payout.due with the commission ids', async () => {
    const payout = aliceUsdPayout();
    const events = await eventually(async () => {
      const found = await payoutEvents(payout.id);
      return found.length >= 2 ? found : undefined;
    });
    expect(events.map((e) => e.type)).toEqual(['payout.created', 'payout.due']);
    expect(events[0]!.merchant_id).toBe(merchant.merchant_id);
    expect(ids(events[0]!.data.commissions!)).toEqual(ids(aliceUsd));
    expect(events[0]!.data).toEqual(payout);
  });

  it('adds nothing on a second run, and grows the open payout with new due commissions', async () => {
    const again = await client.payouts.generate();
    expect(again.data).toEqual([]);
    expect(again.pagination).toMatchObject({ count: 0, total_count: 0, total_pages: 0 });

    const before = aliceUsdPayout();
    const [extra] = await commissions(merchant, alice, [{ amount: 250 }]);
    const grown = await client.payouts.generate();
    expect(grown.data).toHaveLength(1);
    expect(grown.data[0]).toMatchObject({ id: before.id, amount: 1750, state: 'due' });
    expect(ids(grown.data[0]!.commissions!)).toEqual(ids([...aliceUsd, extra!]));
    const events = await eventually(async () => {
      const found = await payoutEvents(before.id);
      return found.length >= 3 ? found : undefined;
    });
    expect(events.map((e) => e.type)).toEqual(['payout.created', 'payout.due', 'payout.updated']);
  });

  it('bundles only the affiliate and currency asked for', async () => {
    const carol = await newAffiliate(merchant);
    await commissions(merchant, carol, [{ amount: 100 }, { amount: 200, currency: 'EUR' }]);
    const eur = await client.payouts.generate({ affiliate_id: carol.id, currency: 'eur' });
    expect(eur.data.map((p) => [p.currency, p.amount])).toEqual([['EUR', 200]]);
    const rest = await client.payouts.generate({ affiliate_id: carol.id });
    expect(rest.data.map((p) => [p.currency, p.amount])).toEqual([['USD', 100]]);
  });

  it('answers 422 with details for an invalid body', async () => {
    const badCurrency = await failure(client.payouts.generate({ currency: 'EURO' }));
    expect(badCurrency.error).toBeInstanceOf(InvalidRequestError);
    expect(badCurrency.status).toBe(422);
    expect(badCurrency.body).toEqual({
      error: 'Could not generate payouts.',
      details: ['Currency must be a three-letter ISO code'],
    });
    // An operator object where a string belongs: the types forbid it, untyped code may send it.
    const badAffiliate = await failure(
      client.payouts.generate({
        affiliate_id: { $ne: null },
      } as unknown as OperationInput<'generatePayouts'>),
    );
    expect(badAffiliate.error).toBeInstanceOf(InvalidRequestError);
    expect(badAffiliate.status).toBe(422);
    expect(badAffiliate.body).toEqual({
      error: 'Could not generate payouts.',
      details: ['Affiliate is invalid'],
    });
  });

  it('puts a commission in one payout only when two runs race', async () => {
    const dave = await newAffiliate(merchant);
    const views = await commissions(
      merchant,
      dave,
      Array.from({ length: 15 }, (_, i) => ({ amount: 100 + i })),
    );
    // Both succeed (a failed one would reject Promise.all).
    await Promise.all([
      client.payouts.generate({ affiliate_id: dave.id }),
      client.payouts.generate({ affiliate_id: dave.id }),
    ]);
    const list = await client.payouts.list({ affiliate_id: dave.id, expand: 'commissions' });
    expect(list.data).toHaveLength(1);
    const payout = list.data[0]!;
    expect(ids(payout.commissions!)).toEqual(ids(views));
    expect(payout.amount).toBe(views.reduce((sum, c) => sum + c.amount, 0));
  });
});

describe('minimum payout', () => {
  it('keeps a payout pending below the campaign minimum, then makes it due (payout.due)', async () => {
    const merchant = await busyMerchant();
    const client = clientOf(merchant);
    const campaignId = await campaignWithMinimum(merchant, 5000);
    const affiliate = await newAffiliate(merchant, campaignId);
    await commissions(merchant, affiliate, [{ amount: 3000 }]);
    const first = await client.payouts.generate();
    expect(first.data).toHaveLength(1);
    const payout = first.data[0]!;
    expect(payout).toMatchObject({ state: 'pending', amount: 3000 });

    await commissions(merchant, affiliate, [{ amount: 2500 }]);
    const second = await client.payouts.generate();
    expect(second.data).toHaveLength(1);
    expect(second.data[0]).toMatchObject({ id: payout.id, state: 'due', amount: 5500 });
    const events = await eventually(async () => {
      const found = await payoutEvents(payout.id);
      return found.length >= 3 ? found : undefined;
    });
    expect(events.map((e) => [e.type, e.data.state])).toEqual([
      ['payout.created', 'pending'],
      ['payout.updated', 'due'],
      ['payout.due', 'due'],
    ]);
  });
});

describe('GET /v1/payouts and /v1/payouts/:id', () => {
  let merchant: TestMerchant;
  let client: Client;
  let erin: AffiliateView;
  let frank: AffiliateView;
  /** Oldest first. */
  const made: Payout[] = [];

  beforeAll(async () => {
    merchant = await busyMerchant();
    client = clientOf(merchant);
    const campaignId = await campaignWithMinimum(merchant, 1000);
    erin = await newAffiliate(merchant, campaignId);
    frank = await newAffiliate(merchant, campaignId);
    const plan: [AffiliateView, CommissionFields][] = [
      [erin, { amount: 1500 }],
      [erin, { amount: 500, currency: 'EUR' }],
      [frank, { amount: 2000 }],
    ];
    for (const [affiliate, fields] of plan) {
      await commissions(merchant, affiliate, [fields]);
      const run = await client.payouts.generate({ affiliate_id: affiliate.id });
      made.push(run.data[0]!);
    }
    await client.payouts.pay({ id: made[2]!.id });
  });

  it('lists payouts newest first in the pagination envelope, without expansions', async () => {
    const res = await client.payouts.list();
    expect(res.pagination).toEqual({
      previous_page: null,
      current_page: 1,
      next_page: null,
      count: 3,
      limit: 25,
      total_pages: 1,
      total_count: 3,
    });
    expect(res.data.map((p) => p.id)).toEqual(made.map((p) => p.id).reverse());
    for (const payout of res.data) expect(Object.keys(payout)).toEqual(PAYOUT_KEYS);
  });

  it('pages with page and limit', async () => {
    const first = await client.payouts.list({ limit: 2 });
    expect(first.pagination).toMatchObject({ count: 2, next_page: 2, total_pages: 2 });
    const second = await client.payouts.list({ limit: 2, page: 2 });
    expect(second.data.map((p) => p.id)).toEqual([made[0]!.id]);
    // The iterator walks both pages, newest first.
    const all: string[] = [];
    for await (const payout of client.payouts.listAll({ limit: 2 })) all.push(payout.id);
    expect(all).toEqual(made.map((p) => p.id).reverse());
  });

  it('filters by affiliate_id and by one or several states', async () => {
    const byAffiliate = await client.payouts.list({ affiliate_id: erin.id });
    expect(ids(byAffiliate.data)).toEqual(ids([made[0]!, made[1]!]));
    const due = await client.payouts.list({ state: 'due' });
    expect(ids(due.data)).toEqual(ids([made[0]!]));
    const pending = await client.payouts.list({ 'state[]': ['pending'] });
    expect(ids(pending.data)).toEqual(ids([made[1]!]));
    const paid = await eventually(async () => {
      const r = await client.payouts.list({ 'state[]': ['paid', 'processing', 'pending'] });
      return r.data.length === 2 ? r : undefined;
    });
    expect(ids(paid.data)).toEqual(ids([made[1]!, made[2]!]));
  });

  it('expands affiliate and commissions (the summary keys) on request', async () => {
    const res = await client.payouts.list({ 'expand[]': ['affiliate', 'commissions'] });
    for (const payout of res.data) {
      expect(Object.keys(payout)).toEqual([...PAYOUT_KEYS, 'affiliate', 'commissions']);
      for (const entry of payout.commissions!) expect(Object.keys(entry)).toEqual(ENTRY_KEYS);
    }
    const one = await client.payouts.list({ expand: 'affiliate' });
    expect(one.data[0]).toHaveProperty('affiliate.id', frank.id);
    expect(one.data[0]).not.toHaveProperty('commissions');
  });

  it('answers 400 for a state, expansion or page it does not know', async () => {
    const state = await failure(client.payouts.list({ state: 'void' }));
    expect(state.error).toBeInstanceOf(InvalidRequestError);
    expect(state.status).toBe(400);
    expect(state.body).toEqual({ error: 'state must be one of: pending, due, processing, paid' });
    const expand = await failure(client.payouts.list({ expand: 'links' }));
    expect(expand.status).toBe(400);
    expect(expand.body).toEqual({
      error: 'Unknown expand: links. Allowed: affiliate, commissions',
    });
    const page = await failure(client.payouts.list({ page: 0 }));
    expect(page.status).toBe(400);
  });

  it('retrieves a payout with its affiliate and commissions (with state and voided_at)', async () => {
    const res = await client.payouts.get({ id: made[0]!.id });
    expect(res).toEqual(made[0]);
    expect(Object.keys(res.commissions![0]!)).toEqual([...ENTRY_KEYS, 'state', 'voided_at']);
  });

  it("answers 404 with the spec's body for an unknown or malformed id", async () => {
    const unknown = randomUUID();
    const res = await failure(client.payouts.get({ id: unknown }));
    expect(res.error).toBeInstanceOf(NotFoundError);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: `Payout not found: ${unknown}` });
    const malformed = await failure(client.payouts.get({ id: 'nope' }));
    expect(malformed.status).toBe(404);
    expect(malformed.body).toEqual({ error: 'Payout not found: nope' });
    const pay = await failure(client.payouts.pay({ id: unknown }));
    expect(pay.error).toBeInstanceOf(NotFoundError);
    expect(pay.status).toBe(404);
    expect(pay.body).toEqual({ error: `Payout not found: ${unknown}` });
  });

  it("never shows, pays or bundles another merchant's payouts", async () => {
    const other = clientOf(await busyMerchant());
    expect((await other.payouts.list()).data).toEqual([]);
    expect((await other.payouts.list({ affiliate_id: erin.id })).data).toEqual([]);
    const get = await failure(other.payouts.get({ id: made[0]!.id }));
    expect(get.status).toBe(404);
    expect(get.body).toEqual({ error: `Payout not found: ${made[0]!.id}` });
    expect((await failure(other.payouts.pay({ id: made[0]!.id }))).status).toBe(404);
    await commissions(merchant, erin, [{ amount: 10 }]);
    expect((await other.payouts.generate({ affiliate_id: erin.id })).data).toEqual([]);
    const mine = await client.payouts.get({ id: made[0]!.id });
    expect(mine.state).toBe('due');
  });
});

describe('PUT /v1/payouts/:id/pay', () => {
  let merchant: TestMerchant;
  let client: Client;

  beforeAll(async () => {
    merchant = await busyMerchant();
    client = clientOf(merchant);
  });

  async function duePayout(amounts: number[], campaignId?: string) {
    const affiliate = await newAffiliate(merchant, campaignId);
    await commissions(
      merchant,
      affiliate,
      amounts.map((amount) => ({ amount })),
    );
    const run = await client.payouts.generate({ affiliate_id: affiliate.id });
    expect(run.data).toHaveLength(1);
    return { affiliate, payout: run.data[0]! };
  }

  it('answers processing at once with paid_at on the payout and its commissions', async () => {
    const { payout } = await duePayout([1200, 800]);
    const res = await client.payouts.pay({ id: payout.id });
    expect(Object.keys(res)).toEqual([...PAYOUT_KEYS, 'affiliate', 'commissions']);
    expect(res).toMatchObject({
      id: payout.id,
      state: 'processing',
      paid_by_id: null,
      amount: 2000,
    });
    expect(res.paid_at).toMatch(ISO);
    for (const entry of res.commissions!) {
      expect(entry).toMatchObject({ paid_at: res.paid_at, state: 'paid' });
    }

    const paid = await eventually(async () => {
      const r = await client.payouts.get({ id: payout.id });
      return r.state === 'paid' ? r : undefined;
    });
    // The id of the API secret that paid; the spec's "user who paid".
    expect(paid.paid_by_id).toMatch(UUID);
    expect(paid.paid_at).toBe(res.paid_at);

    const events = await eventually(async () => {
      const found = await payoutEvents(payout.id);
      return found.some((e) => e.type === 'payout.paid') ? found : undefined;
    });
    expect(events.map((e) => [e.type, e.data.state])).toEqual([
      ['payout.created', 'due'],
      ['payout.due', 'due'],
      ['payout.updated', 'processing'],
      ['payout.paid', 'paid'],
    ]);
    // What the commission service reads to record the commissions as paid.
    for (const event of events.slice(2)) {
      expect(event.data.paid_at).toBe(res.paid_at);
      expect(ids(event.data.commissions!)).toEqual(ids(payout.commissions!));
    }
    expect(events[3]!.data.paid_by_id).toBe(paid.paid_by_id);
  });

  it('changes nothing and answers 422 when the payout is already paid', async () => {
    const { payout } = await duePayout([300]);
    await client.payouts.pay({ id: payout.id });
    const processingOrPaid = await failure(client.payouts.pay({ id: payout.id }));
    expect(processingOrPaid.error).toBeInstanceOf(InvalidRequestError);
    expect(processingOrPaid.status).toBe(422);
    expect(processingOrPaid.body).toEqual(ALREADY_PAID);
    const paid = await eventually(async () => {
      const r = await client.payouts.get({ id: payout.id });
      return r.state === 'paid' ? r : undefined;
    });
    const again = await failure(client.payouts.pay({ id: payout.id }));
    expect(again.status).toBe(422);
    expect(again.body).toEqual(ALREADY_PAID);
    expect(await client.payouts.get({ id: payout.id })).toEqual(paid);
  });

  it('pays once when two pay requests race', async () => {
    const { payout } = await duePayout([450]);
    const answers = await Promise.allSettled([
      client.payouts.pay({ id: payout.id }),
      client.payouts.pay({ id: payout.id }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual(['fulfilled', 'rejected']);
    const lost = answers.find((a) => a.status === 'rejected')!.reason;
    expect(lost).toBeInstanceOf(InvalidRequestError);
    expect(lost).toMatchObject({ status: 422, body: ALREADY_PAID });
    await eventually(async () => {
      const r = await client.payouts.get({ id: payout.id });
      return r.state === 'paid' ? true : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const events = await payoutEvents(payout.id);
    expect(events.filter((e) => e.type === 'payout.paid')).toHaveLength(1);
    expect(events.filter((e) => e.data.state === 'processing')).toHaveLength(1);
  });

  it('pays a pending payout (below the minimum) too', async () => {
    const campaignId = await campaignWithMinimum(merchant, 100_000);
    const { payout } = await duePayout([700], campaignId);
    expect(payout.state).toBe('pending');
    const res = await client.payouts.pay({ id: payout.id });
    expect(res.state).toBe('processing');
    await eventually(async () => {
      const r = await client.payouts.get({ id: payout.id });
      return r.state === 'paid' ? true : undefined;
    });
  });

  it('starts a new payout for commissions that become due after a payment', async () => {
    const { affiliate, payout } = await duePayout([100]);
    await client.payouts.pay({ id: payout.id });
    await commissions(merchant, affiliate, [{ amount: 900 }]);
    const run = await client.payouts.generate({ affiliate_id: affiliate.id });
    expect(run.data).toHaveLength(1);
    expect(run.data[0]!.id).not.toBe(payout.id);
    expect(run.data[0]).toMatchObject({ amount: 900, state: 'due', paid_at: null });
    const list = await client.payouts.list({ affiliate_id: affiliate.id });
    expect(list.data).toHaveLength(2);
  });
});

describe('commission events', () => {
  let merchant: TestMerchant;
  let client: Client;

  beforeAll(async () => {
    merchant = await busyMerchant();
    client = clientOf(merchant);
  });

  it('take a voided commission out of an unpaid payout amount (payout.updated)', async () => {
    const affiliate = await newAffiliate(merchant);
    const [kept, refunded] = await commissions(merchant, affiliate, [
      { amount: 1000 },
      { amount: 400 },
    ]);
    const run = await client.payouts.generate({ affiliate_id: affiliate.id });
    const payout = run.data[0]!;
    expect(payout.amount).toBe(1400);

    const voidedAt = new Date(Date.now() + 1000);
    await publishCommissionEvents(merchant.merchant_id, [
      {
        type: 'commission.voided',
        data: {
          ...refunded!,
          state: 'voided',
          voided_at: voidedAt.toISOString(),
          updated_at: voidedAt.toISOString(),
        },
      },
    ]);
    const after = await client.payouts.get({ id: payout.id });
    expect(after.amount).toBe(1000);
    const entry = after.commissions!.find((c) => c.id === refunded!.id);
    expect(entry).toMatchObject({ state: 'voided', voided_at: voidedAt.toISOString() });
    const events = await eventually(async () => {
      const found = await payoutEvents(payout.id);
      return found.length >= 3 ? found : undefined;
    });
    expect(events.map((e) => [e.type, e.data.amount])).toEqual([
      ['payout.created', 1400],
      ['payout.due', 1400],
      ['payout.updated', 1000],
    ]);

    // An older copy of a commission (late, out of order) changes nothing.
    await publishCommissionEvents(merchant.merchant_id, [
      {
        type: 'commission.updated',
        data: { ...kept!, amount: 1, updated_at: new Date(Date.now() - 86_400_000).toISOString() },
      },
    ]);
    expect((await client.payouts.get({ id: payout.id })).amount).toBe(1000);
  });

  it('are applied once when delivered twice', async () => {
    const affiliate = await newAffiliate(merchant);
    const view = commissionView(affiliate, { amount: 640 });
    await publishCommissionEvents(merchant.merchant_id, [
      { type: 'commission.created', data: view },
      { type: 'commission.created', data: view },
    ]);
    const run = await client.payouts.generate({ affiliate_id: affiliate.id });
    expect(run.data).toHaveLength(1);
    expect(run.data[0]!.commissions).toHaveLength(1);
    expect(run.data[0]!.amount).toBe(640);
  });

  it('that cannot be read are set aside without blocking the ones after them', async () => {
    const affiliate = await newAffiliate(merchant);
    await publishRaw('evt.commission.created', 'not json');
    // Every commission event carries its sale (the contract's commissionEventSchema): one
    // without is poison, terminated before the payout service's handler.
    const noSale: Partial<CommissionEventView> = commissionView(affiliate, { amount: 5 });
    delete noSale.sale;
    await publishCommissionEvents(merchant.merchant_id, [
      { type: 'commission.created', data: noSale as CommissionEventView },
    ]);
    await commissions(merchant, affiliate, [{ amount: 77 }]);
    const run = await client.payouts.generate({ affiliate_id: affiliate.id });
    expect(run.data.map((p) => p.amount)).toEqual([77]);
  });
});

describe('bad input', () => {
  // Raw helper: malformed query strings, paths and bodies that the typed client cannot produce.
  it('never causes a 5xx', async () => {
    const merchant = await busyMerchant();
    const secret = merchant.api_secret;
    const attempts: [string, string, Record<string, unknown>?][] = [
      ['GET', '/v1/payouts?page=abc'],
      ['GET', '/v1/payouts?limit=-1'],
      ['GET', '/v1/payouts?limit=100000'],
      ['GET', '/v1/payouts?state[x]=1'],
      ['GET', '/v1/payouts?state=paid,void'],
      ['GET', '/v1/payouts?affiliate_id[]=a&affiliate_id[]=b'],
      ['GET', '/v1/payouts?affiliate_id[$ne]=x'],
      ['GET', '/v1/payouts?expand[a]=b'],
      ['GET', `/v1/payouts/${encodeURIComponent("' or 1=1")}`],
      ['GET', '/v1/payouts/%24where'],
      ['PUT', '/v1/payouts/%20/pay'],
      ['PUT', `/v1/payouts/${randomUUID()}/pay`, { json: { state: 'paid' } }],
      ['POST', '/v1/payouts/generate', { rawBody: '[1,2]', json: undefined }],
      ['POST', '/v1/payouts/generate', { json: { currency: ['USD', 'EUR'] } }],
      ['POST', '/v1/payouts/generate', { json: { currency: 12 } }],
      ['POST', '/v1/payouts/generate', { form: { 'currency[]': 'x' } }],
      ['POST', '/v1/payouts/generate', { form: { affiliate_id: 'x'.repeat(5000) } }],
    ];
    for (const [method, path, opts] of attempts) {
      const headers: Record<string, string> =
        opts && 'rawBody' in opts ? { 'content-type': 'application/json' } : {};
      const res = await request(method, path, { secret, headers, ...opts });
      expect({ path, status: res.status < 500 }).toEqual({ path, status: true });
      expect(res.body).toHaveProperty(res.status >= 400 ? 'error' : 'data');
    }
  });
});
