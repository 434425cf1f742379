/**
 * A new wallet address (API or portal) takes effect for payouts only once the affiliate follows
 * the single-use link mailed to their ACCOUNT e-mail: until then the old address stays the
 * wallet and the new one is pending; confirming sends `affiliate.updated` to webhooks and to the
 * payout service's copy of the affiliate. Through the real gateway, with a real SMTP server.
 */
import { randomUUID } from 'node:crypto';
import { api } from './support/http';
import { createAffiliate } from './support/journey';
import { createMerchant, type TestMerchant } from './support/merchant';
import { csrfOf, mailedConfirmation, portalRequest, signIn } from './support/portal';
import { campaignPayingAtOnce, paidJourney } from './support/portal-journey';
import { eventually } from './support/processor';
import { mailsTo } from './support/smtp-sink';
import {
  ofType,
  startReceiver,
  type WebhookReceiver,
} from '../services/webhook/test/support/webhook-receiver';

let merchant: TestMerchant;
let receiver: WebhookReceiver;
beforeAll(async () => {
  merchant = await createMerchant({ rateLimit: 100_000 });
  receiver = await startReceiver();
  const endpoint = await api(merchant.api_secret).post('/v1/webhook_endpoints', {
    url: receiver.url,
    events: ['affiliate.updated'],
  });
  expect(endpoint.status).toBe(200);
});
afterAll(async () => {
  await receiver?.stop();
});

const address = (tag: string) => `${tag}-${randomUUID()}@example.com`;
const WALLET_MAIL = /Confirm your new payout wallet/;
const waitForMail = (to: string) =>
  eventually(async () => mailsTo(to).find((m) => WALLET_MAIL.test(m.subject)), 20_000);
const { linkIn, confirmByLink } = mailedConfirmation('confirm-wallet');
const affiliateOf = async (id: string) =>
  (await api(merchant.api_secret).get(`/v1/affiliates/${id}`)).body;

describe('wallet changes', () => {
  it('through the API: pending until the link mailed to the account e-mail is followed, once', async () => {
    const account = address('account');
    const oldWallet = address('old-wallet');
    const newWallet = address('new-wallet');
    const campaignId = await campaignPayingAtOnce(merchant);
    // Given at creation by the merchant: confirmed then (docs/security.md, "Wallet changes").
    const { affiliate, payoutId } = await paidJourney(merchant, campaignId, {
      email: account,
      wallet_a_email: oldWallet,
    });
    expect(affiliate.wallet_a_email).toBe(oldWallet);
    expect(affiliate.wallet_a_email_confirmed_at).toEqual(affiliate.created_at);

    const changed = await api(merchant.api_secret).put(`/v1/affiliates/${affiliate.id}`, {
      wallet_a_email: newWallet,
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      wallet_a_email: oldWallet,
      wallet_a_email_confirmed_at: affiliate.created_at,
      unconfirmed_wallet_a_email: newWallet,
    });

    // The link goes to the account e-mail, never to the new (possibly an attacker's) address.
    const mail = await waitForMail(account);
    expect(mail.text).toContain(newWallet);
    expect(mailsTo(newWallet)).toEqual([]);
    const link = linkIn(mail);
    const confirmed = await confirmByLink(link);
    expect(confirmed.status).toBe(200);
    expect(confirmed.text).toContain(`Payouts to wallet A now go to ${newWallet}`);

    const after = await affiliateOf(affiliate.id);
    expect(after).toMatchObject({ wallet_a_email: newWallet, unconfirmed_wallet_a_email: null });
    expect(Date.parse(after.wallet_a_email_confirmed_at)).toBeGreaterThan(
      Date.parse(affiliate.created_at),
    );
    // Single use.
    const again = await confirmByLink(link);
    expect(again.status).toBe(404);
    expect(again.text).toContain('This confirmation link does not work');

    // Merchants hear of it...
    const [hook] = await receiver.waitFor(
      (r) => ofType('affiliate.updated')(r) && r.json.object.wallet_a_email === newWallet,
    );
    expect(hook!.json.object).toMatchObject({
      id: affiliate.id,
      wallet_a_email_confirmed_at: after.wallet_a_email_confirmed_at,
      unconfirmed_wallet_a_email: null,
    });
    // ...and so does the payout service: its copy of the affiliate has the confirmed wallet.
    const payout = await eventually(async () => {
      const res = await api(merchant.api_secret).get(`/v1/payouts/${payoutId}?expand=affiliate`);
      return res.body.affiliate?.wallet_a_email === newWallet ? res.body : undefined;
    });
    expect(payout.affiliate.wallet_a_email_confirmed_at).toBe(after.wallet_a_email_confirmed_at);
  }, 90_000);

  it('through the portal: shown as pending, confirmed by the mailed link', async () => {
    const account = address('account');
    const newWallet = address('portal-wallet');
    const affiliate = await createAffiliate(merchant, { email: account });
    const { cookie } = await signIn(merchant, affiliate.id);
    const dashboard = await portalRequest('/portal', { cookie });
    const saved = await portalRequest('/portal/settings', {
      cookie,
      form: {
        _csrf: csrfOf(dashboard.text),
        email: account,
        wallet_a_email: '',
        wallet_b_email: newWallet,
      },
    });
    expect(saved.status).toBe(303);
    expect(saved.location).toBe('/portal?notice=confirm-wallet');

    const pending = await portalRequest(saved.location!, { cookie });
    expect(pending.text).toContain('a new wallet receives payouts once you follow it');
    expect(pending.text).toContain(`data-wallet-pending="${newWallet}"`);
    expect(pending.text).toMatch(/id="wallet_b_email"[^>]*value=""/);
    expect(await affiliateOf(affiliate.id)).toMatchObject({
      wallet_b_email: null,
      wallet_b_email_confirmed_at: null,
      unconfirmed_wallet_b_email: newWallet,
    });

    const confirmed = await confirmByLink(linkIn(await waitForMail(account)));
    expect(confirmed.status).toBe(200);
    const shown = await portalRequest('/portal', { cookie });
    expect(shown.text).toMatch(new RegExp(`id="wallet_b_email"[^>]*value="${newWallet}"`));
    expect(shown.text).not.toContain(`data-wallet-pending="${newWallet}"`);
    const after = await affiliateOf(affiliate.id);
    expect(after).toMatchObject({ wallet_b_email: newWallet, unconfirmed_wallet_b_email: null });
    expect(after.wallet_b_email_confirmed_at).toEqual(expect.any(String));
  }, 60_000);

  it('a newer request replaces the older link; clearing a wallet takes effect at once', async () => {
    const account = address('account');
    const first = address('first');
    const second = address('second');
    const affiliate = await createAffiliate(merchant, { email: account });
    const client = api(merchant.api_secret);
    await client.put(`/v1/affiliates/${affiliate.id}`, { wallet_a_email: first });
    const firstMail = await waitForMail(account);
    await client.put(`/v1/affiliates/${affiliate.id}`, { wallet_a_email: second });
    const secondMail = await eventually(async () =>
      mailsTo(account).find((m) => WALLET_MAIL.test(m.subject) && m.text.includes(second)),
    );
    expect((await confirmByLink(linkIn(firstMail))).status).toBe(404);
    expect((await confirmByLink(linkIn(secondMail))).status).toBe(200);
    expect((await affiliateOf(affiliate.id)).wallet_a_email).toBe(second);

    const cleared = await client.put(`/v1/affiliates/${affiliate.id}`, { wallet_a_email: '' });
    expect(cleared.body).toMatchObject({
      wallet_a_email: null,
      wallet_a_email_confirmed_at: null,
      unconfirmed_wallet_a_email: null,
    });
  }, 60_000);
});
