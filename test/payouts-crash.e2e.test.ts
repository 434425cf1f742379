/**
 * Faults around paying: the payout process dies right after answering a pay request, before
 * the queued completion ran. After a restart the payout still ends `paid`, exactly once. Runs
 * on its own system with its own NATS and its own MongoDB-protocol server, so no other payout
 * process (of the shared system or of another fault test) can take the payment over.
 */
import { randomUUID } from 'node:crypto';
import type { AffiliateView } from '@aff/contracts';
import { api, request } from './support/http';
import { ownMongoSystemPerBlock } from './support/own-mongo-system';
import {
  commissionView,
  eventually,
  payoutEvents,
  publishCommissionEvents,
} from '../services/payout/test/support/payout-fixtures';

describe('when the payout process dies between the pay answer and the completion', () => {
  const sys = ownMongoSystemPerBlock({
    // Completion waits long enough for the test to kill the process first.
    PAYOUT_PROCESSING_DELAY_MS: '1500',
    PAYOUT_JOB_LEASE_MS: '1000',
    PAYOUT_JOB_SWEEP_MS: '200',
    // The scheduler bundles due commissions here, without a generate call.
    PAYOUT_GENERATE_INTERVAL_MS: '300',
    RPC_TIMEOUT_MS: '2000',
  });

  it('completes the payment after a restart, once', async () => {
    const baseUrl = sys.isolated.system.gatewayUrl;
    const client = api(sys.merchant.api_secret, baseUrl);
    const created = await client.post('/v1/affiliates', {
      first_name: 'Cra',
      last_name: 'Sh',
      email: `crash-${randomUUID()}@example.com`,
    });
    expect(created.status).toBe(200);
    const affiliate = created.body as AffiliateView;
    const commission = commissionView(affiliate, { amount: 4200 });
    await publishCommissionEvents(
      sys.merchant.merchant_id,
      [{ type: 'commission.created', data: commission }],
      sys.isolated.infra.natsUrl,
    );

    const payout = await eventually(async () => {
      const list = await client.get(`/v1/payouts?affiliate_id=${affiliate.id}&expand=commissions`);
      return list.body.data?.[0];
    });
    expect(payout).toMatchObject({ state: 'due', amount: 4200 });
    expect(payout.commissions.map((c: any) => c.id)).toEqual([commission.id]);

    const pay = await request('PUT', `/v1/payouts/${payout.id}/pay`, {
      secret: sys.merchant.api_secret,
      baseUrl,
    });
    expect(pay.status).toBe(200);
    expect(pay.body).toMatchObject({ state: 'processing', paid_by_id: null });
    await sys.isolated.system.stopProcess('payout', 'SIGKILL');

    // Down: the gateway answers at once; nothing completed the payment meanwhile.
    const down = await client.get(`/v1/payouts/${payout.id}`);
    expect(down.status).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect((await payoutEvents(payout.id, sys.isolated.infra.natsUrl)).map((e) => e.type)).toEqual([
      'payout.created',
      'payout.due',
      'payout.updated',
    ]);

    await sys.isolated.system.startProcess('payout');
    const paid = await eventually(async () => {
      const res = await client.get(`/v1/payouts/${payout.id}`);
      return res.body.state === 'paid' ? res.body : undefined;
    });
    expect(paid.paid_at).toBe(pay.body.paid_at);
    expect(paid.paid_by_id).toMatch(/^[0-9a-f-]{36}$/);

    // Later sweeps find nothing left to do: one payout.paid, and a second pay changes nothing.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const events = await payoutEvents(payout.id, sys.isolated.infra.natsUrl);
    expect(events.map((e) => e.type)).toEqual([
      'payout.created',
      'payout.due',
      'payout.updated',
      'payout.paid',
    ]);
    const again = await request('PUT', `/v1/payouts/${payout.id}/pay`, {
      secret: sys.merchant.api_secret,
      baseUrl,
    });
    expect(again.status).toBe(422);
  });
});
