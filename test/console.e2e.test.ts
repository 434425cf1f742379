/**
 * The merchant console through the real gateway: users invited by the ops CLI, sign-in by
 * mailed single-use links, sessions, roles, CSRF and same-origin checks, and an owner disabling
 * an affiliate with the REST API's effects (state and the affiliate.updated webhook).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { api, gatewayUrl } from './support/http';
import { createAffiliate } from './support/journey';
import { createMerchant, runOps, type TestMerchant } from './support/merchant';
import { csrfOf } from './support/portal';
import { consoleRequest, followLink, invite, linksMailedTo, pathOf } from './support/console';
import { mailsTo } from './support/smtp-sink';
import { ofType, type WebhookReceiver } from '../services/webhook/test/support/webhook-receiver';
import { subscribedReceiver } from './support/merchant-webhooks';

let merchant: TestMerchant;
let webDb: mongoose.Connection;
let receiver: WebhookReceiver;
beforeAll(async () => {
  merchant = await createMerchant({ rateLimit: 100_000 });
  webDb = await mongoose.createConnection(process.env.MONGO_URL!, { dbName: 'web' }).asPromise();
  ({ receiver } = await subscribedReceiver(merchant, ['affiliate.updated']));
});
afterAll(async () => {
  await webDb?.close();
  await receiver?.stop();
});

const address = (tag: string) => `${tag}-${randomUUID()}@example.com`;
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

async function signedIn(role: 'owner' | 'viewer') {
  const invited = await invite(merchant.merchant_id, address(role), role);
  const { cookie } = await followLink(invited.sign_in_url);
  const page = await consoleRequest('/console/affiliates', { cookie });
  expect(page.status).toBe(200);
  return { cookie, csrf: csrfOf(page.text) };
}

describe('invites and sign-in links', () => {
  it('console:invite --json prints exactly {user_id, sign_in_url} and mails that link', async () => {
    const email = address('invite');
    const invited = await invite(merchant.merchant_id, email, 'owner');
    expect(Object.keys(invited).sort()).toEqual(['sign_in_url', 'user_id']);
    expect(invited.sign_in_url.startsWith(`${gatewayUrl()}/console/sign-in/link?token=`)).toBe(
      true,
    );
    expect(await linksMailedTo(email)).toEqual([invited.sign_in_url]);
    // Stored hashed: the token itself is nowhere in web's database.
    const token = new URL(invited.sign_in_url).searchParams.get('token')!;
    const link = await webDb.collection('console_links').findOne({ user_id: invited.user_id });
    expect(link).not.toBeNull();
    expect(JSON.stringify(link)).not.toContain(token);
  });

  it('refuses an unknown merchant and a bad role', async () => {
    const unknown = await runOps(['console:invite', '--merchant', 'nope', '--email', 'a@b.c']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Merchant not found');
    const badRole = await runOps([
      'console:invite',
      ...['--merchant', merchant.merchant_id, '--email', 'a@b.c', '--role', 'admin'],
    ]);
    expect(badRole.code).toBe(2);
  });

  it('a link signs in once; a newer link kills the older; an expired one does not work', async () => {
    const email = address('once');
    const first = await invite(merchant.merchant_id, email, 'viewer');
    const second = await invite(merchant.merchant_id, email, 'viewer');
    expect((await consoleRequest(pathOf(first.sign_in_url))).status).toBe(401);

    const { cookie, answer } = await followLink(second.sign_in_url);
    expect(answer.location).toBe('/console');
    const flags = answer.setCookie[0]!;
    expect(flags).toMatch(/^aff_console=[A-Za-z0-9_-]{40,}; Path=\/console; Max-Age=43200;/);
    expect(flags).toContain('HttpOnly');
    expect(flags).toContain('SameSite=Lax');
    expect(flags).not.toContain('Secure'); // plain HTTP here; Secure over HTTPS (unit-tested)
    expect((await consoleRequest('/console/affiliates', { cookie })).status).toBe(200);
    expect((await consoleRequest(pathOf(second.sign_in_url))).status).toBe(401);

    const third = await invite(merchant.merchant_id, email, 'viewer');
    await webDb
      .collection('console_links')
      .updateMany({ user_id: third.user_id }, { $set: { expires_at: new Date(Date.now() - 1) } });
    const expired = await consoleRequest(pathOf(third.sign_in_url));
    expect(expired.status).toBe(401);
    expect(expired.setCookie).toEqual([]);
  });

  it('the sign-in form answers the same for known and unknown addresses, mailing only users', async () => {
    const known = address('known');
    await invite(merchant.merchant_id, known, 'owner');
    const unknown = address('unknown');
    const a = await consoleRequest('/console/sign-in', { form: { email: known } });
    const b = await consoleRequest('/console/sign-in', { form: { email: unknown } });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    const strip = (text: string) => text.replace(/nonce-?="?[A-Za-z0-9+/=]+"?/g, '');
    expect(strip(a.text)).toEqual(strip(b.text));
    const [, mailed] = await linksMailedTo(known, 2);
    expect((await followLink(mailed!)).answer.status).toBe(303);
    expect(mailsTo(unknown)).toEqual([]);
  });

  it('limits sign-in requests per address', async () => {
    const email = address('limit');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await consoleRequest('/console/sign-in', { form: { email } })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });
});

describe('sessions', () => {
  it('without a session, pages send to the sign-in form; sign-out ends the session', async () => {
    expect((await consoleRequest('/console/affiliates')).location).toBe('/console/sign-in');
    const { cookie, csrf } = await signedIn('viewer');
    const out = await consoleRequest('/console/sign-out', { cookie, form: { _csrf: csrf } });
    expect(out.status).toBe(303);
    expect(out.setCookie[0]).toMatch(/^aff_console=; Path=\/console; Max-Age=0/);
    const after = await consoleRequest('/console/affiliates', { cookie });
    expect(after.status).toBe(303);
    expect(after.location).toBe('/console/sign-in');
  });

  it('a session holds its user (one read per page); a role change ends the sessions at once', async () => {
    const email = address('rerole');
    const first = await invite(merchant.merchant_id, email, 'viewer');
    const { cookie } = await followLink(first.sign_in_url);
    const stored = await webDb
      .collection('console_sessions')
      .findOne({ _id: sha256(cookie.split('=')[1]!) as never });
    expect(stored).toMatchObject({
      user_id: first.user_id,
      merchant_id: merchant.merchant_id,
      email,
      role: 'viewer',
    });
    // The same role again (a new link) leaves the session alone.
    await invite(merchant.merchant_id, email, 'viewer');
    expect((await consoleRequest('/console/affiliates', { cookie })).text).toContain('(viewer)');
    // A new role: the session that holds the old one is gone; the next sign-in is an owner's.
    const again = await invite(merchant.merchant_id, email, 'owner');
    expect(again.user_id).toBe(first.user_id);
    const stale = await consoleRequest('/console/affiliates', { cookie });
    expect(stale.status).toBe(303);
    expect(stale.location).toBe('/console/sign-in');
    const { cookie: owner } = await followLink(again.sign_in_url);
    expect((await consoleRequest('/console/affiliates', { cookie: owner })).text).toContain(
      '(owner)',
    );
  });

  it('a session ended elsewhere gets nothing of a page the web service began beside its read', async () => {
    const { cookie } = await signedIn('owner');
    const affiliate = await createAffiliate(merchant);
    const seen = await consoleRequest('/console/affiliates', { cookie });
    expect(seen.text).toContain(affiliate.email);
    // What another replica's sign-out does: the session document goes.
    await webDb
      .collection('console_sessions')
      .deleteOne({ _id: sha256(cookie.split('=')[1]!) as never });
    const after = await consoleRequest('/console/affiliates', { cookie });
    expect(after.status).toBe(303);
    expect(after.location).toBe('/console/sign-in');
    expect(after.setCookie).toEqual([
      expect.stringMatching(/^aff_console=; Path=\/console; Max-Age=0/),
    ]);
    expect(after.text).not.toContain(affiliate.email);
  });

  it('a session from before sessions held their user reads the user', async () => {
    const viewer = await invite(merchant.merchant_id, address('earlier'), 'viewer');
    const token = randomBytes(32).toString('base64url');
    const now = Date.now();
    await webDb.collection('console_sessions').insertOne({
      _id: sha256(token) as never,
      user_id: viewer.user_id,
      csrf_token: randomBytes(32).toString('base64url'),
      created_at: new Date(now),
      expires_at: new Date(now + 3_600_000),
    });
    const page = await consoleRequest('/console/affiliates', { cookie: `aff_console=${token}` });
    expect(page.status).toBe(200);
    expect(page.text).toContain('(viewer)');
  });
});

describe('actions', () => {
  it("refuses a viewer's action (403) and changes nothing", async () => {
    const affiliate = await createAffiliate(merchant, { email: address('aff') });
    const { cookie, csrf } = await signedIn('viewer');
    const refused = await consoleRequest(`/console/affiliates/${affiliate.id}/disable`, {
      cookie,
      form: { _csrf: csrf },
    });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('Not allowed');
    const rest = await api(merchant.api_secret).get(`/v1/affiliates/${affiliate.id}`);
    expect(rest.body.state).toBe('active');
  });

  it('refuses a missing CSRF token and a foreign Origin, changing nothing', async () => {
    const affiliate = await createAffiliate(merchant, { email: address('aff') });
    const { cookie, csrf } = await signedIn('owner');
    const path = `/console/affiliates/${affiliate.id}/disable`;
    const noToken = await consoleRequest(path, { cookie, form: {} });
    expect(noToken.status).toBe(403);
    const forged = await consoleRequest(path, {
      cookie,
      form: { _csrf: csrf },
      origin: 'https://evil.example',
    });
    expect(forged.status).toBe(403);
    const rest = await api(merchant.api_secret).get(`/v1/affiliates/${affiliate.id}`);
    expect(rest.body.state).toBe('active');
  });

  it('an owner disables an affiliate as the API would: state and affiliate.updated webhook', async () => {
    const email = address('disable');
    const affiliate = await createAffiliate(merchant, { email });
    const { cookie, csrf } = await signedIn('owner');
    const list = await consoleRequest(`/console/affiliates?q=${encodeURIComponent(email)}`, {
      cookie,
    });
    expect(list.text).toContain(email);
    expect(list.text).toContain(`/console/affiliates/${affiliate.id}/disable`);
    const done = await consoleRequest(`/console/affiliates/${affiliate.id}/disable`, {
      cookie,
      form: { _csrf: csrf, q: email, page: '2', state: 'bogus' },
      origin: new URL(gatewayUrl()).origin,
    });
    expect(done.status).toBe(303);
    expect(done.location).toBe(`/console/affiliates?q=${encodeURIComponent(email)}&page=2`);
    const rest = await api(merchant.api_secret).get(`/v1/affiliates/${affiliate.id}`);
    expect(rest.body.state).toBe('disabled');
    const [hook] = await receiver.waitFor(
      (r) =>
        r.path.endsWith(`?m=${merchant.merchant_id}`) &&
        ofType('affiliate.updated')(r) &&
        r.json.object.id === affiliate.id,
    );
    expect(hook!.json.object.state).toBe('disabled');
    // Found by a link token as well.
    const byToken = await consoleRequest(
      `/console/affiliates?q=${encodeURIComponent(affiliate.links[0]!.token)}`,
      { cookie },
    );
    expect(byToken.text).toContain(email);
  });

  it('searches by part of a name and filters by state, paging kept in the URL', async () => {
    const family = `Fam${randomUUID().slice(0, 8)}`;
    const one = await createAffiliate(merchant, { email: address('n1'), last_name: family });
    const two = await createAffiliate(merchant, { email: address('n2'), last_name: family });
    await api(merchant.api_secret).put(`/v1/affiliates/${two.id}`, { state: 'disabled' });
    const { cookie } = await signedIn('viewer');
    // Each row links the name to the affiliate's page (a viewer's list has no action forms).
    const ids = (text: string) =>
      [one.id, two.id].filter((id) => text.includes(`href="/console/affiliates/${id}"`));
    const q = family.toLowerCase().slice(1);
    const all = await consoleRequest(`/console/affiliates?q=${q}`, { cookie });
    expect(ids(all.text).sort()).toEqual([one.id, two.id].sort());
    const disabled = await consoleRequest(`/console/affiliates?q=${q}&state=disabled`, { cookie });
    expect(ids(disabled.text)).toEqual([two.id]);
    expect(disabled.text).toContain('<option value="disabled" selected>');
    const active = await consoleRequest(`/console/affiliates?q=${q}&state=active`, { cookie });
    expect(ids(active.text)).toEqual([one.id]);
    // Pattern characters are matched literally; nonsense paging and states are ignored.
    const odd = await consoleRequest('/console/affiliates?q=.*&state=nope&page=-3', { cookie });
    expect(odd.status).toBe(200);
    expect(odd.text).toContain('No affiliates found.');
  });
});
