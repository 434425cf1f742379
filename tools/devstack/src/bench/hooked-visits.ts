/**
 * Visits of a merchant with a `referral.created` webhook endpoint, as most merchants have: a
 * local receiver answering 200 at once. The window closes when every accepted visit is written
 * and published (as for plain visits) and its `referral.created` was received, so the webhook
 * service's work is on the clock and in the CPU and write accounts.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { benchVisits, call, prepareAffiliate, type BenchMerchant } from './money-bench';
import type { MeasuredWindow } from './money-bench';
import type { VisitDrainProbe } from './visit-drain';
import { startReceiver } from './webhook-bench';
import type { WriteMeter } from './write-stats';

export async function benchHookedVisits(
  gatewayUrl: string,
  merchant: BenchMerchant,
  load: { connections: number; durationSeconds: number },
  opts: { probe: VisitDrainProbe; window?: MeasuredWindow; writes?: WriteMeter },
) {
  const receiver = await startReceiver();
  try {
    await call(
      gatewayUrl,
      '/v1/webhook_endpoints',
      {
        method: 'POST',
        body: JSON.stringify({ url: receiver.url, events: ['referral.created'] }),
      },
      merchant.api_secret,
    );
    const affiliate = await prepareAffiliate(gatewayUrl, merchant);
    return await benchVisits(gatewayUrl, merchant, affiliate.links[0].token, load, opts.probe, {
      name: 'POST /t/v1/visits, referral.created hooked',
      window: opts.window,
      writes: opts.writes,
      alsoWaitFor: async (count) => {
        const deadline = Date.now() + 120_000;
        while (receiver.received('referral.created') < count) {
          if (Date.now() > deadline) {
            throw new Error(
              `hooked visits: ${receiver.received('referral.created')} of ${count} delivered`,
            );
          }
          await delay(100);
        }
      },
    });
  } finally {
    await receiver.close();
  }
}
