/**
 * Faults around exports: the payout process dies half-way through creating an export (some
 * payouts taken, the export not yet open), and half-way through completing one. After a
 * restart every payout is in exactly one state: the dead creation is rolled back (its payouts
 * due, in no export, a new export takes them all), the decided completion is carried out (each
 * payout paid once). Runs on its own system, like test/payouts-crash.e2e.test.ts.
 */
import { randomUUID } from 'node:crypto';
import type { AffiliateView } from '@aff/contracts';
import { api } from './support/http';
import { ownMongoSystemPerBlock } from './support/own-mongo-system';
import { eventually, payoutEvents } from '../services/payout/test/support/payout-fixtures';
import { duePayout, setWallets } from '../services/payout/test/support/export-fixtures';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('when the payout process dies in the middle of an export', () => {
  let client: ReturnType<typeof api>;

  const sys = ownMongoSystemPerBlock({
    // Each payout an export takes (or pays) waits, so the test can kill the process.
    PAYOUT_EXPORT_STEP_DELAY_MS: '400',
    PAYOUT_EXPORT_LEASE_MS: '3000',
    PAYOUT_EXPORT_SWEEP_MS: '200',
    PAYOUT_JOB_LEASE_MS: '1000',
    PAYOUT_JOB_SWEEP_MS: '200',
    RPC_TIMEOUT_MS: '3000',
  });
  beforeAll(async () => {
    client = api(sys.merchant.api_secret, sys.isolated.system.gatewayUrl);
  });

  async function duePayouts(currency: string, count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const created = await client.post('/v1/affiliates', {
        first_name: `Crash${i}`,
        last_name: 'Test',
        email: `crash-${randomUUID()}@example.com`,
      });
      const affiliate = await setWallets(
        sys.merchant.merchant_id,
        created.body as AffiliateView,
        { a: { email: `w${i}-${randomUUID().slice(0, 6)}@wallet.example`, confirmed: true } },
        sys.isolated.infra.natsUrl,
      );
      const payout = await duePayout(
        client,
        sys.merchant.merchant_id,
        affiliate,
        1000 + i,
        currency,
        sys.isolated.infra.natsUrl,
      );
      ids.push(payout.id);
    }
    return ids;
  }

  const states = async (ids: string[]) =>
    Promise.all(ids.map(async (id) => (await client.get(`/v1/payouts/${id}`)).body.state));

  it('rolls back a creation that died, so every payout is due again and exportable once', async () => {
    const ids = await duePayouts('USD', 4);
    const pending = client.post('/v1/payout_exports', {
      format: 'paypal_payouts',
      currency: 'USD',
    });
    await sleep(1100); // two of the four payouts taken
    await sys.isolated.system.stopProcess('payout', 'SIGKILL');
    expect((await pending).status).toBeGreaterThanOrEqual(500);
    await sys.isolated.system.startProcess('payout');

    // The dead creation is never shown, and once its lease is over its payouts are due again.
    expect((await client.get('/v1/payout_exports')).body.data).toEqual([]);
    await eventually(async () =>
      (await states(ids)).every((state) => state === 'due') ? true : undefined,
    );
    const again = await client.post('/v1/payout_exports', {
      format: 'paypal_payouts',
      currency: 'USD',
    });
    expect(again.status).toBe(200);
    expect([...again.body.payout_ids].sort()).toEqual([...ids].sort());
    expect((await client.get('/v1/payout_exports')).body.data.map((e: any) => e.id)).toEqual([
      again.body.id,
    ]);
    expect(await states(ids)).toEqual(ids.map(() => 'processing'));
    const canceled = await client.post(`/v1/payout_exports/${again.body.id}/cancel`, {});
    expect(canceled.status).toBe(200);
  }, 90_000);

  it('finishes a completion that died, paying each payout once', async () => {
    const ids = await duePayouts('EUR', 3);
    const created = await client.post('/v1/payout_exports', {
      format: 'paypal_payouts',
      currency: 'EUR',
    });
    expect(created.status).toBe(200);
    const completing = client.post(`/v1/payout_exports/${created.body.id}/complete`, {});
    await sleep(600); // the first payout paid, the others not yet
    await sys.isolated.system.stopProcess('payout', 'SIGKILL');
    expect((await completing).status).toBeGreaterThanOrEqual(500);
    await sys.isolated.system.startProcess('payout');

    // Decided before the crash: shown as completed, and carried out by the recovery.
    expect((await client.get(`/v1/payout_exports/${created.body.id}`)).body.state).toBe(
      'completed',
    );
    await eventually(
      async () => ((await states(ids)).every((state) => state === 'paid') ? true : undefined),
      30_000,
    );
    await sleep(1000);
    for (const id of ids) {
      const types = (await payoutEvents(id, sys.isolated.infra.natsUrl)).map((e) => e.type);
      expect(types.filter((type) => type === 'payout.paid')).toHaveLength(1);
    }
    expect((await client.post(`/v1/payout_exports/${created.body.id}/cancel`, {})).status).toBe(
      422,
    );
  }, 90_000);
});
