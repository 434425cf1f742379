/**
 * Console sign-in details through the real gateway that the first console tests do not cover:
 * the sign-in form answers as fast for a user's address as for an unknown one (no account
 * enumeration by timing, even with a slow mail server), and a session used after a pause gets
 * its cookie's expiry moved with the server's 12-hour idle expiry.
 */
import { createHash, randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { createMerchant, type TestMerchant } from './support/merchant';
import { consoleRequest, followLink, invite, linksMailedTo } from './support/console';
import { SLOW_MAIL_MS } from './support/smtp-sink';

const IDLE_S = 12 * 3600;
let merchant: TestMerchant;
let webDb: mongoose.Connection;
beforeAll(async () => {
  merchant = await createMerchant({ rateLimit: 100_000 });
  webDb = await mongoose.createConnection(process.env.MONGO_URL!, { dbName: 'web' }).asPromise();
});
afterAll(async () => {
  await webDb?.close();
});

it("answers a user's address without waiting for the mail server", async () => {
  // `+slow` addresses are accepted by the test's mail server only after SLOW_MAIL_MS.
  const known = `owner+slow-${randomUUID()}@example.com`;
  await invite(merchant.merchant_id, known, 'owner');
  const started = Date.now();
  const answer = await consoleRequest('/console/sign-in', { form: { email: known } });
  const tookMs = Date.now() - started;
  expect(answer.status).toBe(200);
  expect(answer.text).toContain('If this address belongs to a console user');
  // A sender that waited would take at least SLOW_MAIL_MS for a known address only.
  expect(tookMs).toBeLessThan(SLOW_MAIL_MS / 2);
  // The link still arrives (the invitation's, then this one) and works.
  const [, mailed] = await linksMailedTo(known, 2);
  expect((await followLink(mailed!)).answer.status).toBe(303);
}, 60_000);

it('moves the cookie expiry with the idle expiry when a session is used after a pause', async () => {
  const invited = await invite(merchant.merchant_id, `idle-${randomUUID()}@example.com`, 'viewer');
  const { cookie } = await followLink(invited.sign_in_url);
  const token = cookie.slice(cookie.indexOf('=') + 1);
  const sessions = webDb.collection<{ _id: string; expires_at: Date }>('console_sessions');
  const id = createHash('sha256').update(token).digest('hex');
  const lastUsed = async (agoMs: number) =>
    sessions.updateOne(
      { _id: id },
      { $set: { expires_at: new Date(Date.now() + IDLE_S * 1000 - agoMs) } },
    );

  // Used 30 s ago: the expiry is not written again, and the cookie is left as it is.
  await lastUsed(30_000);
  const soon = await consoleRequest('/console/affiliates', { cookie });
  expect(soon.status).toBe(200);
  expect(soon.setCookie).toEqual([]);

  // Used 3 hours ago: the server pushes the expiry 12 h ahead, and the cookie with it.
  await lastUsed(3 * 3_600_000);
  const later = await consoleRequest('/console/affiliates', { cookie });
  expect(later.status).toBe(200);
  expect(later.setCookie).toHaveLength(1);
  const set = later.setCookie[0]!;
  expect(set.startsWith(`${cookie}; Path=/console; `)).toBe(true);
  expect(set).toContain('HttpOnly');
  expect(set).toContain('SameSite=Lax');
  const maxAge = Number(/Max-Age=(\d+)/.exec(set)?.[1]);
  expect(maxAge).toBeGreaterThan(IDLE_S - 60);
  expect(maxAge).toBeLessThanOrEqual(IDLE_S);
  const stored = await sessions.findOne({ _id: id });
  expect(new Date(stored!.expires_at).getTime()).toBeGreaterThan(Date.now() + (IDLE_S - 60) * 1000);
});
