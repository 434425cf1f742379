/**
 * What the fan-out may ack unread (EndpointDirectory.knownWithout): only the events of a merchant
 * this replica has just found without an enabled endpoint, over a real store. Not before it
 * asked, not while asking, not after a change, and never for a merchant with one.
 */
import { randomUUID } from 'node:crypto';
import { EndpointDirectory } from '../src/data/endpoint-directory';
import { openStores, type Stores } from './support/delivery-store';

let s: Stores;
beforeAll(async () => {
  s = await openStores('webhook_endpoint_directory_test');
});
afterAll(() => s.close());

async function addEndpoint(merchant: string, enabled: boolean) {
  const now = new Date();
  await s.endpoints.insert({
    _id: randomUUID(),
    merchant_id: merchant,
    url: 'https://example.com/hook',
    events: ['referral.created'],
    enabled,
    secret: 'whsec_AAAA',
    created_at: now,
    updated_at: now,
  });
}

it('knows a merchant without enabled endpoints only once it has found so, until a change', async () => {
  const directory = new EndpointDirectory(s.endpoints);
  const merchant = randomUUID();
  await addEndpoint(merchant, false); // a disabled one makes no delivery
  expect(directory.knownWithout(merchant)).toBe(false); // never asked
  const asking = directory.enabledOf(merchant);
  expect(directory.knownWithout(merchant)).toBe(false); // asking now
  expect(await asking).toEqual([]);
  expect(directory.knownWithout(merchant)).toBe(true);
  directory.changed(merchant); // e.g. an endpoint created through this replica
  expect(directory.knownWithout(merchant)).toBe(false);
});

it('never for a merchant with an enabled endpoint', async () => {
  const directory = new EndpointDirectory(s.endpoints);
  const merchant = randomUUID();
  await addEndpoint(merchant, true);
  expect(await directory.enabledOf(merchant)).toHaveLength(1);
  expect(directory.knownWithout(merchant)).toBe(false);
});

it('forgets after its lifetime', async () => {
  const directory = new EndpointDirectory(s.endpoints);
  const merchant = randomUUID();
  await directory.enabledOf(merchant);
  expect(directory.knownWithout(merchant)).toBe(true);
  const now = Date.now();
  const clock = jest.spyOn(Date, 'now').mockReturnValue(now + 5_001);
  try {
    expect(directory.knownWithout(merchant)).toBe(false);
  } finally {
    clock.mockRestore();
  }
});
