/**
 * Payout exports through the real gateway: each format downloaded byte for byte, wallets that
 * are not confirmed skipped, complete (paid, by the completing key) and cancel (due again), two
 * racing exports that never share a payout, and the errors. Commission and wallet facts are
 * published as their owners will publish them (services/payout/test/support).
 */
import { randomUUID } from 'node:crypto';
import type { AffiliateView } from '@aff/contracts';
import { api, request } from './support/http';
import { createMerchant, type TestMerchant } from './support/merchant';
import { eventually } from '../services/payout/test/support/payout-fixtures';
import { duePayout, setWallets } from '../services/payout/test/support/export-fixtures';
import { ofType, startReceiver } from '../services/webhook/test/support/webhook-receiver';

type Client = ReturnType<typeof api>;

async function affiliate(client: Client, name: string) {
  const res = await client.post('/v1/affiliates', {
    first_name: name,
    last_name: 'Tester',
    email: `${name.toLowerCase()}-${randomUUID()}@example.com`,
  });
  expect(res.status).toBe(200);
  return res.body as AffiliateView;
}

const wallet = (tag: string) => `${tag}-${randomUUID().slice(0, 8)}@wallet.example`;
const reference = (payoutId: string) => payoutId.replace(/-/g, '').slice(0, 30);

describe('payout exports', () => {
  let merchant: TestMerchant;
  let client: Client;

  beforeAll(async () => {
    merchant = await createMerchant({ rateLimit: 5000 });
    client = api(merchant.api_secret);
  });

  it('exports due USD payouts to a PayPal file, skips an unconfirmed wallet, and completes once', async () => {
    const paypalA = wallet('ada');
    const ada = await setWallets(merchant.merchant_id, await affiliate(client, 'Ada'), {
      a: { email: paypalA, confirmed: true },
    });
    const bob = await setWallets(merchant.merchant_id, await affiliate(client, 'Bob'), {
      a: { email: wallet('bob'), confirmed: false },
    });
    const adaPayout = await duePayout(client, merchant.merchant_id, ada, 2469, 'USD');
    const bobPayout = await duePayout(client, merchant.merchant_id, bob, 1000, 'USD');

    const created = await client.post('/v1/payout_exports', {
      format: 'paypal_payouts',
      currency: 'usd',
    });
    expect(created.status).toBe(200);
    const exported = created.body;
    expect(Object.keys(exported)).toEqual([
      'id',
      'format',
      'currency',
      'state',
      'payout_ids',
      'skipped',
      'count',
      'total_cents',
      'files',
      'created_at',
    ]);
    expect(exported).toMatchObject({
      format: 'paypal_payouts',
      currency: 'USD',
      state: 'open',
      payout_ids: [adaPayout.id],
      skipped: [{ payout_id: bobPayout.id, reason: 'wallet_unconfirmed' }],
      count: 1,
      total_cents: 2469,
    });
    expect(exported.files).toEqual([
      {
        part: 1,
        rows: 1,
        url: `${process.env.GATEWAY_URL}/v1/payout_exports/${exported.id}/files/1`,
      },
    ]);
    expect((await client.get(`/v1/payouts/${adaPayout.id}`)).body.state).toBe('processing');
    expect((await client.get(`/v1/payouts/${bobPayout.id}`)).body.state).toBe('due');
    // In the export, so `pay` would pay it a second way: refused.
    const pay = await request('PUT', `/v1/payouts/${adaPayout.id}/pay`, {
      secret: merchant.api_secret,
    });
    expect(pay.status).toBe(422);

    const file = await client.get(`/v1/payout_exports/${exported.id}/files/1`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(file.headers.get('content-disposition')).toBe(
      `attachment; filename=payouts-paypal_payouts-USD-${exported.id}-1.csv`,
    );
    expect(file.body).toBe(
      `${paypalA},24.69,USD,${reference(adaPayout.id)},Affiliate commission payout,PAYPAL\n`,
    );
    expect((await client.get(`/v1/payout_exports/${exported.id}/files/1`)).body).toBe(file.body);
    expect((await client.get(`/v1/payout_exports/${exported.id}/files/2`)).status).toBe(404);

    // Nothing else in USD can be paid by PayPal: a second export holds nothing of the first.
    const second = await client.post('/v1/payout_exports', {
      format: 'paypal_payouts',
      currency: 'USD',
    });
    expect(second.status).toBe(422);
    expect(second.body.details).toEqual(['No due payout in USD can be exported']);

    const completed = await client.post(`/v1/payout_exports/${exported.id}/complete`, {});
    expect(completed.status).toBe(200);
    expect(completed.body).toMatchObject({ id: exported.id, state: 'completed' });
    const paid = await eventually(async () => {
      const res = await client.get(`/v1/payouts/${adaPayout.id}`);
      return res.body.state === 'paid' ? res.body : undefined;
    });
    expect(paid.amount).toBe(2469);
    expect(paid.paid_by_id).toMatch(/^[0-9a-f-]{36}$/);
    const again = await client.post(`/v1/payout_exports/${exported.id}/complete`, {});
    expect(again.status).toBe(422);
    expect(again.body).toEqual({
      error: 'Could not complete payout export.',
      details: ['Payout export is not open'],
    });
    expect((await client.post(`/v1/payout_exports/${exported.id}/cancel`, {})).status).toBe(422);
    // The file of a completed export is still the same file.
    expect((await client.get(`/v1/payout_exports/${exported.id}/files/1`)).body).toBe(file.body);
  });

  it('writes a Wise batch in JPY units, and cancel makes its payouts due again', async () => {
    const wise = wallet('yuki');
    const yuki = await setWallets(merchant.merchant_id, await affiliate(client, 'Yuki'), {
      b: { email: wise, confirmed: true },
    });
    const payout = await duePayout(client, merchant.merchant_id, yuki, 1500, 'JPY');
    const created = await client.post('/v1/payout_exports', {
      format: 'wise_batch',
      currency: 'JPY',
      payout_ids: [payout.id, randomUUID()],
    });
    expect(created.status).toBe(200);
    expect(created.body.payout_ids).toEqual([payout.id]);
    expect(created.body.skipped).toEqual([{ payout_id: expect.any(String), reason: 'not_found' }]);
    const file = await client.get(`/v1/payout_exports/${created.body.id}/files/1`);
    expect(file.headers.get('content-disposition')).toContain(
      `payouts-wise_batch-JPY-${created.body.id}-1.csv`,
    );
    expect(file.body).toBe(
      'name,recipientEmail,paymentReference,receiverType,amountCurrency,amount,sourceCurrency,targetCurrency\n' +
        `Yuki Tester,${wise},${reference(payout.id)},PERSON,target,1500,JPY,JPY\n`,
    );

    const canceled = await client.post(`/v1/payout_exports/${created.body.id}/cancel`, {});
    expect(canceled.status).toBe(200);
    expect(canceled.body.state).toBe('canceled');
    expect((await client.get(`/v1/payouts/${payout.id}`)).body.state).toBe('due');
    expect((await client.post(`/v1/payout_exports/${created.body.id}/cancel`, {})).status).toBe(
      422,
    );
    // Due again: a new export takes it.
    const again = await client.post('/v1/payout_exports', { format: 'csv', currency: 'JPY' });
    expect(again.status).toBe(200);
    expect(again.body.payout_ids).toEqual([payout.id]);
    const csv = await client.get(`/v1/payout_exports/${again.body.id}/files/1`);
    const [header, row] = (csv.body as string).split('\n');
    expect(header).toBe(
      'payout_id,affiliate_id,first_name,last_name,email,wallet_a_email,wallet_b_email,currency,amount,commission_count,created_at',
    );
    expect(row).toBe(
      `${payout.id},${yuki.id},Yuki,Tester,${yuki.email},,${wise},JPY,1500,1,${payout.created_at}`,
    );
    const list = await client.get('/v1/payout_exports?limit=2');
    expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([
      again.body.id,
      created.body.id,
    ]);
    expect(list.body.pagination).toMatchObject({ current_page: 1, limit: 2, count: 2 });
  });

  it('keeps a held payout as exported: new commissions go to a new payout of the series', async () => {
    const zoe = await setWallets(merchant.merchant_id, await affiliate(client, 'Zoe'), {
      a: { email: wallet('zoe'), confirmed: true },
    });
    const held = await duePayout(client, merchant.merchant_id, zoe, 300, 'CHF');
    const created = await client.post('/v1/payout_exports', {
      format: 'paypal_payouts',
      currency: 'CHF',
    });
    expect(created.body.payout_ids).toEqual([held.id]);
    // A commission due after the file was written is not slipped into the held payout.
    const next = await duePayout(client, merchant.merchant_id, zoe, 50, 'CHF');
    expect(next.id).not.toBe(held.id);
    expect(next.amount).toBe(50);
    expect((await client.get(`/v1/payouts/${held.id}`)).body).toMatchObject({
      state: 'processing',
      amount: 300,
    });
    const completed = await client.post(`/v1/payout_exports/${created.body.id}/complete`, {});
    expect(completed.status).toBe(200);
    const paid = await eventually(async () => {
      const res = await client.get(`/v1/payouts/${held.id}`);
      return res.body.state === 'paid' ? res.body : undefined;
    });
    expect(paid.amount).toBe(300);
    expect((await client.get(`/v1/payouts/${next.id}`)).body.state).toBe('due');
  });

  it('gives each payout to one of two racing exports, never to both', async () => {
    const payoutIds: string[] = [];
    for (let i = 0; i < 6; i++) {
      const one = await setWallets(merchant.merchant_id, await affiliate(client, `Racer${i}`), {
        a: { email: wallet(`r${i}`), confirmed: true },
      });
      payoutIds.push((await duePayout(client, merchant.merchant_id, one, 100 + i, 'EUR')).id);
    }
    const [a, b] = await Promise.all([
      client.post('/v1/payout_exports', { format: 'paypal_payouts', currency: 'EUR' }),
      client.post('/v1/payout_exports', { format: 'paypal_payouts', currency: 'EUR' }),
    ]);
    const taken = [a, b].filter((res) => res.status === 200).map((res) => res.body.payout_ids);
    // The one that found nothing left is told so.
    for (const res of [a, b]) expect([200, 422]).toContain(res.status);
    const all = taken.flat();
    expect(new Set(all).size).toBe(all.length);
    expect([...all].sort()).toEqual([...payoutIds].sort());
  });

  it('answers 404 for an unknown or another merchant’s export and 422 for bad input', async () => {
    const other = await createMerchant({ rateLimit: 1000 });
    const otherClient = api(other.api_secret);
    const id = randomUUID();
    const missing = await client.get(`/v1/payout_exports/${id}`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: `Payout export not found: ${id}` });
    const mine = (await client.get('/v1/payout_exports')).body.data[0];
    for (const path of [`/v1/payout_exports/${mine.id}`, `/v1/payout_exports/${mine.id}/files/1`]) {
      expect((await otherClient.get(path)).status).toBe(404);
    }
    expect((await otherClient.post(`/v1/payout_exports/${mine.id}/cancel`, {})).status).toBe(404);
    expect((await otherClient.post(`/v1/payout_exports/${id}/complete`, {})).status).toBe(404);

    const bad = await client.post('/v1/payout_exports', { format: 'venmo', currency: 'US' });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({
      error: 'Could not create payout export.',
      details: [
        'Format must be one of: paypal_payouts, wise_batch, csv',
        'Currency must be a three-letter ISO code',
      ],
    });
    const notIso = await client.post('/v1/payout_exports', { format: 'csv', currency: 'ZZZ' });
    expect(notIso.body.details).toEqual(['Currency is not an ISO 4217 currency']);
  });

  it('delivers payout_export.created, .completed and .canceled to webhooks with the export as object', async () => {
    const receiver = await startReceiver();
    try {
      const own = await createMerchant({ rateLimit: 1000 });
      const ownClient = api(own.api_secret);
      const endpoint = await ownClient.post('/v1/webhook_endpoints', {
        url: receiver.url,
        'events[]': ['payout_export.created', 'payout_export.completed', 'payout_export.canceled'],
      });
      expect(endpoint.status).toBe(200);
      const one = await setWallets(own.merchant_id, await affiliate(ownClient, 'Hook'), {
        a: { email: wallet('hook'), confirmed: true },
      });
      await duePayout(ownClient, own.merchant_id, one, 700, 'GBP');
      const first = await ownClient.post('/v1/payout_exports', { format: 'csv', currency: 'GBP' });
      const canceled = await ownClient.post(`/v1/payout_exports/${first.body.id}/cancel`, {});
      const second = await ownClient.post('/v1/payout_exports', {
        format: 'paypal_payouts',
        currency: 'GBP',
      });
      const completed = await ownClient.post(`/v1/payout_exports/${second.body.id}/complete`, {});

      const [created] = await receiver.waitFor(
        (r) => ofType('payout_export.created')(r) && r.json.object.id === first.body.id,
      );
      expect(Object.keys(created!.json)).toEqual(['object', 'event', 'request']);
      expect(created!.json.object).toEqual(first.body);
      expect(created!.json.event).toMatchObject({
        type: 'payout_export.created',
        api_version: 'v1',
      });
      const [cancelEvent] = await receiver.waitFor(
        (r) => ofType('payout_export.canceled')(r) && r.json.object.id === first.body.id,
      );
      expect(cancelEvent!.json.object).toEqual(canceled.body);
      const [completeEvent] = await receiver.waitFor(
        (r) => ofType('payout_export.completed')(r) && r.json.object.id === second.body.id,
      );
      expect(completeEvent!.json.object).toEqual(completed.body);
      // Only the three export events were asked for.
      expect(
        receiver.requests.filter((r) => !r.json?.event?.type?.startsWith('payout_export.')),
      ).toEqual([]);
    } finally {
      await receiver.stop();
    }
  });
});
