/**
 * The money flow survives processes dying mid-flow: charges sent while the commission service
 * is down, and the tracking service killed while handling one, still end as exactly one
 * commission each once the services are back.
 */
import { startIsolatedSystem, type IsolatedSystem } from './support/isolated-system';
import { createMerchant, type TestMerchant } from './support/merchant';
import { eventually } from './support/processor';
import { charge, commissionsOf, createAffiliate, referredCustomer } from './support/journey';

let isolated: IsolatedSystem;
let merchant: TestMerchant;
const sharedGateway = process.env.GATEWAY_URL;

beforeAll(async () => {
  isolated = await startIsolatedSystem();
  // The journey helpers talk to GATEWAY_URL: point them at the isolated system.
  process.env.GATEWAY_URL = isolated.system.gatewayUrl;
  merchant = await createMerchant({ rateLimit: 100_000 });
});
afterAll(async () => {
  process.env.GATEWAY_URL = sharedGateway;
  await isolated?.stop();
});

it('loses nothing and doubles nothing when services die between steps', async () => {
  const affiliate = await createAffiliate(merchant);
  const { customerId } = await referredCustomer(merchant, affiliate);

  await isolated.system.stopProcess('commission', 'SIGKILL');
  const first = await charge(merchant, customerId, { amount: 1000 });
  await charge(merchant, customerId, { amount: 2000 });
  await charge(merchant, customerId, { amount: 3000 });
  // Kill tracking while it is likely in the middle of attributing these charges.
  await isolated.system.stopProcess('tracking', 'SIGKILL');
  await isolated.system.startProcess('tracking');
  await isolated.system.startProcess('commission');

  // Events held by the killed tracking process come back after the consumer's ack wait (10 s).
  const list = await eventually(async () => {
    const current = await commissionsOf(merchant, affiliate.id);
    return current.length >= 3 ? current : undefined;
  }, 45_000);
  // The processor retries an event it thinks failed: same event id, no second effect.
  await charge(merchant, customerId, { ...first.object }, { eventId: first.eventId });
  await new Promise((r) => setTimeout(r, 2000));
  const after = await commissionsOf(merchant, affiliate.id);
  expect(after).toHaveLength(3);
  expect(after.map((c) => c.amount).sort((a, b) => a - b)).toEqual([200, 400, 600]);
  expect(new Set(list.map((c: any) => c.id)).size).toBe(3);
}, 120_000);
