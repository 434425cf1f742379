/**
 * The console's review queue through the real gateway: held referrals listed with their
 * signals; an owner's approve and reject (one, or many at once) change the referral as the REST
 * API shows and fire its webhooks; in a bulk decision one referral that cannot be decided is
 * reported by name while the rest are decided; viewers, forged posts and other tenants change
 * nothing; bad input is a 4xx page, never a 500.
 */
import { api, gatewayUrl } from './support/http';
import { createMerchant, type TestMerchant } from './support/merchant';
import { consoleRequest, consoleSession, heldReferral, holdingCampaign } from './support/console';
import { ofType, type WebhookReceiver } from '../services/webhook/test/support/webhook-receiver';
import { subscribedReceiver } from './support/merchant-webhooks';

let merchant: TestMerchant;
let campaignId: string;
let receiver: WebhookReceiver;
let owner: { cookie: string; csrf: string };
const origin = () => new URL(gatewayUrl()).origin;

beforeAll(async () => {
  merchant = await createMerchant({ rateLimit: 100_000 });
  ({ receiver } = await subscribedReceiver(merchant, ['referral.reviewed', 'commission.voided']));
  campaignId = await holdingCampaign(merchant);
  owner = await consoleSession(merchant.merchant_id, 'owner');
}, 60_000);
afterAll(async () => {
  await receiver?.stop();
});

const referral = async (id: string, secret = merchant.api_secret) =>
  (await api(secret).get(`/v1/referrals/${id}`)).body;
const decide = (form: [string, string][], session = owner, path = '/console/reviews') =>
  consoleRequest(path, {
    cookie: session.cookie,
    form: [['_csrf', session.csrf], ...form],
    origin: origin(),
  });
const reviewedHooks = (id: string) =>
  receiver.waitFor(
    (r) =>
      r.path.endsWith(`?m=${merchant.merchant_id}`) &&
      ofType('referral.reviewed')(r) &&
      r.json.object.id === id,
  );

it('lists held referrals with their signals, and only this merchant’s', async () => {
  const held = await heldReferral(merchant, campaignId, { first_name: 'Listed' });
  const other = await createMerchant({ rateLimit: 100_000 });
  const foreign = await heldReferral(other, await holdingCampaign(other));
  const page = await consoleRequest('/console/reviews', { cookie: owner.cookie });
  expect(page.status).toBe(200);
  expect(page.text).toContain(`data-id="${held.referralId}"`);
  expect(page.text).toContain('disposable_email');
  expect(page.text).toContain(`formaction="/console/reviews/${held.referralId}/approve"`);
  expect(page.text).toContain(held.affiliate.email);
  expect(page.text).not.toContain(foreign.referralId);
  expect(page.text).not.toContain(foreign.affiliate.email);
  // Deciding another merchant's referral by its id: not found, and it stays open.
  const refused = await decide([], owner, `/console/reviews/${foreign.referralId}/approve`);
  expect(refused.status).toBe(422);
  expect(refused.text).toContain(foreign.referralId);
  expect(refused.text).toContain('not found');
  expect((await referral(foreign.referralId, other.api_secret)).review_state).toBe('open');
}, 120_000);

it('an owner approves one referral: the REST API shows it approved, its commission released, the webhook sent', async () => {
  const held = await heldReferral(merchant, campaignId, { amount: 10_000 });
  expect(held.commission).toMatchObject({ held: true, state: 'pending' });
  const done = await decide([], owner, `/console/reviews/${held.referralId}/approve`);
  expect(done.status).toBe(200);
  expect(done.text).toContain('Approved 1 referral.');
  expect(await referral(held.referralId)).toMatchObject({ review_state: 'approved' });
  const [hook] = await reviewedHooks(held.referralId);
  expect(hook!.json.object.review_state).toBe('approved');
  const commission = await api(merchant.api_secret).get(`/v1/commissions/${held.commission!.id}`);
  expect(commission.body.held).toBe(false);
  // It has left the open queue and shows under "approved".
  const queue = await consoleRequest('/console/reviews', { cookie: owner.cookie });
  expect(queue.text).not.toContain(`data-id="${held.referralId}"`);
  const approved = await consoleRequest('/console/reviews?show=approved', { cookie: owner.cookie });
  expect(approved.text).toContain(`data-id="${held.referralId}"`);
}, 120_000);

it('a bulk reject decides every ticked referral and names the one already decided', async () => {
  const [a, b, decided] = await Promise.all(
    ['Ada', 'Bea', 'Cyd'].map((name) => heldReferral(merchant, campaignId, { first_name: name })),
  );
  const early = await api(merchant.api_secret).post(`/v1/referrals/${decided!.referralId}/review`, {
    decision: 'approve',
  });
  expect(early.status).toBe(200);
  const ids = [a!, decided!, b!].map((h) => ['ids', h.referralId] as [string, string]);
  const done = await decide([...ids, ['action', 'reject'], ['note', 'bulk test']]);
  expect(done.status).toBe(200);
  expect(done.text).toContain('Rejected 2 referrals.');
  const failures = /<ul class="failures">([\s\S]*?)<\/ul>/.exec(done.text)![1]!;
  expect(failures).toContain(decided!.referralId);
  expect(failures).toContain(`Cyd ${decided!.affiliate.last_name}`);
  expect(failures).toContain('Could not review referral.');
  expect(failures).not.toContain(a!.referralId);
  for (const h of [a!, b!]) {
    const now = await referral(h.referralId);
    expect(now).toMatchObject({ review_state: 'rejected', review_note: 'bulk test' });
    expect(now.deactivated_at).not.toBeNull();
    expect((await reviewedHooks(h.referralId))[0]!.json.object.review_state).toBe('rejected');
  }
  expect(await referral(decided!.referralId)).toMatchObject({ review_state: 'approved' });
}, 180_000);

it("refuses a viewer's decision and a forged or token-less post, changing nothing", async () => {
  const held = await heldReferral(merchant, campaignId);
  const viewer = await consoleSession(merchant.merchant_id, 'viewer');
  const seen = await consoleRequest('/console/reviews', { cookie: viewer.cookie });
  expect(seen.text).toContain(`data-id="${held.referralId}"`);
  expect(seen.text).not.toContain(`formaction="/console/reviews/${held.referralId}/approve"`);
  expect(seen.text).toContain('Your role (viewer) can see everything here but not change it.');
  const byViewer = await decide([], viewer, `/console/reviews/${held.referralId}/approve`);
  expect(byViewer.status).toBe(403);
  expect(byViewer.text).toContain('Not allowed');
  const forged = await consoleRequest(`/console/reviews/${held.referralId}/approve`, {
    cookie: owner.cookie,
    form: { _csrf: owner.csrf },
    origin: 'https://evil.example',
  });
  expect(forged.status).toBe(403);
  const noToken = await consoleRequest('/console/reviews', {
    cookie: owner.cookie,
    form: [
      ['action', 'reject'],
      ['ids', held.referralId],
    ],
  });
  expect(noToken.status).toBe(403);
  expect(await referral(held.referralId)).toMatchObject({ review_state: 'open' });
}, 120_000);

it('answers bad input with a 4xx page, never a 500', async () => {
  const odd = await consoleRequest('/console/reviews?show=nope&page=-3', { cookie: owner.cookie });
  expect(odd.status).toBe(200);
  expect(odd.text).toMatch(/<option value="open" selected>/);
  const weird = await consoleRequest('/console/reviews?show[]=a&page=abc', {
    cookie: owner.cookie,
  });
  expect(weird.status).toBe(200);
  expect((await decide([['action', 'maybe']])).status).toBe(400);
  expect((await decide([['action', 'approve']])).status).toBe(400);
  const unknownId = '00000000-0000-4000-8000-000000000000';
  expect((await decide([], owner, `/console/reviews/${unknownId}/maybe`)).status).toBe(404);
  const unknown = await decide([], owner, `/console/reviews/${unknownId}/approve`);
  expect(unknown.status).toBe(422);
  expect(unknown.text).toContain('not found');
  const malformed = await decide([
    ['action', 'approve'],
    ['ids', '<script>'],
  ]);
  expect(malformed.status).toBe(422);
  expect(malformed.text).toContain('Not an id.');
  expect(malformed.text).not.toContain('<script>');
  const tooLong = await decide([
    ['action', 'reject'],
    ...Array.from({ length: 200 }, (_, i) => ['ids', `x${i}`] as [string, string]),
  ]);
  expect(tooLong.status).toBeGreaterThanOrEqual(400);
  expect(tooLong.status).toBeLessThan(500);
});
