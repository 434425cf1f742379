/** The affiliate portal over HTTP: sign-in, session cookie, dashboard, settings, sign-out, isolation. */
import { api } from './support/http';
import { createAffiliate } from './support/journey';
import { createMerchant, type TestMerchant } from './support/merchant';
import { csrfOf, magicLinkPath, portalRequest, signIn } from './support/portal';
import { campaignPayingAtOnce, paidJourney, type JourneyResult } from './support/portal-journey';

let merchant: TestMerchant;
let campaignId: string;
beforeAll(async () => {
  merchant = await createMerchant({ rateLimit: 100_000 });
  campaignId = await campaignPayingAtOnce(merchant);
});

const NO_STACK = /\bat \S+ \(|node_modules|Error:/;

describe('sign-in by magic link', () => {
  it('opens a session with a safe cookie, redirects to the dashboard and counts the sign-in', async () => {
    const affiliate = await createAffiliate(merchant, { first_name: 'Sia', last_name: 'Gnin' });
    const { cookie, answer } = await signIn(merchant, affiliate.id);
    expect(answer.location).toBe('/portal');
    expect(answer.setCookie).toHaveLength(1);
    const attributes = answer.setCookie[0]!.split('; ');
    expect(attributes[0]).toMatch(/^aff_portal=[A-Za-z0-9_-]{40,}$/);
    expect(attributes).toEqual(
      expect.arrayContaining(['Path=/portal', 'HttpOnly', 'SameSite=Lax', 'Max-Age=28800']),
    );
    expect(attributes.find((a) => a.startsWith('Expires='))).toBeDefined();
    expect(attributes).not.toContain('Secure'); // plain HTTP here; HTTPS adds it (unit test)

    const dashboard = await portalRequest('/portal', { cookie });
    expect(dashboard.status).toBe(200);
    expect(dashboard.text).toContain('Welcome, Sia Gnin');
    expect(dashboard.text).toContain(affiliate.links[0].url.replace(/&/g, '&amp;'));
    const after = await api(merchant.api_secret).get(`/v1/affiliates/${affiliate.id}`);
    expect(after.body.sign_in_count).toBe(1);
    await signIn(merchant, affiliate.id);
    expect(
      (await api(merchant.api_secret).get(`/v1/affiliates/${affiliate.id}`)).body.sign_in_count,
    ).toBe(2);
  });

  it('refuses a reused, superseded or unknown link with a clear 4xx page', async () => {
    const affiliate = await createAffiliate(merchant);
    const older = await magicLinkPath(merchant, affiliate.id);
    const newer = await magicLinkPath(merchant, affiliate.id);
    expect((await portalRequest(newer)).status).toBe(303);
    for (const path of [older, newer, '/portal/sso?token=nope', '/portal/sso']) {
      const refused = await portalRequest(path);
      expect(refused.status).toBe(401);
      expect(refused.setCookie).toEqual([]);
      expect(refused.text).toContain('This sign-in link does not work');
      expect(refused.text).toContain('Ask the program you work with for a new sign-in link');
      expect(refused.text).not.toMatch(NO_STACK);
    }
  });

  it('turns away pages without a session', async () => {
    for (const path of ['/portal', '/portal/referrals', '/portal/payouts/x']) {
      const res = await portalRequest(path, { cookie: 'aff_portal=forged' });
      expect(res.status).toBe(401);
      expect(res.text).toContain('You are not signed in');
    }
  });
});

describe('settings and sign-out', () => {
  it('saves wallet e-mails and the notification preference only with the CSRF token', async () => {
    const affiliate = await createAffiliate(merchant);
    const { cookie } = await signIn(merchant, affiliate.id);
    const csrf = csrfOf((await portalRequest('/portal', { cookie })).text);
    const form = {
      email: affiliate.email,
      wallet_a_email: 'wallet-a@example.com',
      wallet_b_email: 'wallet-b@example.com',
    };
    const forged = await portalRequest('/portal/settings', { cookie, form });
    expect(forged.status).toBe(403);
    const wrong = await portalRequest('/portal/settings', {
      cookie,
      form: { ...form, _csrf: 'x' },
    });
    expect(wrong.status).toBe(403);
    expect(
      (await api(merchant.api_secret).get(`/v1/affiliates/${affiliate.id}`)).body.wallet_a_email,
    ).toBeNull();

    const saved = await portalRequest('/portal/settings', {
      cookie,
      form: { ...form, _csrf: csrf },
    });
    expect(saved.status).toBe(303);
    expect(saved.location).toBe('/portal?notice=confirm-wallet');
    const stored = (await api(merchant.api_secret).get(`/v1/affiliates/${affiliate.id}`)).body;
    // New wallets wait for the link mailed to the account (test/wallet-confirmation.e2e.test.ts).
    expect(stored).toMatchObject({
      wallet_a_email: null,
      unconfirmed_wallet_a_email: 'wallet-a@example.com',
      unconfirmed_wallet_b_email: 'wallet-b@example.com',
      receive_new_commission_notifications: false, // the box was not ticked
      email: affiliate.email,
      unconfirmed_email: null,
    });

    const invalid = await portalRequest('/portal/settings', {
      cookie,
      form: { ...form, wallet_a_email: 'not an address', _csrf: csrf },
    });
    expect(invalid.status).toBe(422);
    expect(invalid.text).toContain('Wallet a email is invalid');
  });

  it('signs out: the cookie is cleared and the session no longer works', async () => {
    const affiliate = await createAffiliate(merchant);
    const { cookie } = await signIn(merchant, affiliate.id);
    const csrf = csrfOf((await portalRequest('/portal', { cookie })).text);
    const out = await portalRequest('/portal/sign-out', { cookie, form: { _csrf: csrf } });
    expect(out.status).toBe(303);
    expect(out.location).toBe('/portal/signed-out');
    expect(out.setCookie[0]).toMatch(/^aff_portal=; Path=\/portal; Max-Age=0;/);
    expect((await portalRequest('/portal', { cookie })).status).toBe(401);
  });
});

describe('a session sees only its own affiliate', () => {
  let mine: JourneyResult;
  let theirs: JourneyResult;
  beforeAll(async () => {
    [mine, theirs] = await Promise.all([
      paidJourney(merchant, campaignId),
      paidJourney(merchant, campaignId),
    ]);
  }, 120_000);

  it('shows real numbers of its own journey', async () => {
    const { cookie } = await signIn(merchant, mine.affiliate.id);
    const page = (await portalRequest('/portal', { cookie })).text;
    expect(page).toMatch(/data-stat="visitors">2</);
    expect(page).toMatch(/data-stat="conversions">1</);
    expect(page).toMatch(/data-state="paid">\$20\.00</);
    expect(page).toContain(`/portal/payouts/${mine.payoutId}`);
    expect(page).toContain(`/portal/commissions/${mine.commissionId}`);
    // The referred customer is the merchant's: the affiliate sees a masked address only.
    expect(page).toContain('c***@example.com');
    expect(page).not.toContain(mine.customerEmail);
    const payout = await portalRequest(`/portal/payouts/${mine.payoutId}`, { cookie });
    expect(payout.status).toBe(200);
    expect(payout.text).toContain('Payout of $20.00');
  });

  it("never shows another affiliate's data, whatever ids the URL carries", async () => {
    const { cookie } = await signIn(merchant, mine.affiliate.id);
    const other = theirs.affiliate.id;
    const secrets = [
      other,
      theirs.payoutId,
      theirs.commissionId,
      theirs.customerEmail,
      theirs.affiliate.links[0].token,
    ];
    const urls = [
      `/portal?affiliate_id=${other}`,
      `/portal/referrals?affiliate_id=${other}`,
      `/portal/referrals?page=1&affiliate_id=${other}`,
      `/portal/commissions?affiliate_id=${other}&state=paid`,
      `/portal/payouts?affiliate_id=${other}`,
      `/portal/payouts/${theirs.payoutId}`,
      `/portal/commissions/${theirs.commissionId}`,
      `/portal/referrals/${theirs.referralId}`,
      `/portal/affiliates/${other}`,
    ];
    for (const url of urls) {
      const res = await portalRequest(url, { cookie });
      expect([200, 404]).toContain(res.status);
      for (const secret of secrets) expect(res.text).not.toContain(secret);
    }
    expect((await portalRequest(`/portal/payouts/${theirs.payoutId}`, { cookie })).status).toBe(
      404,
    );
    expect(
      (await portalRequest(`/portal/commissions/${theirs.commissionId}`, { cookie })).status,
    ).toBe(404);

    // A settings form naming the other affiliate still changes only the session's own.
    const csrf = csrfOf((await portalRequest('/portal', { cookie })).text);
    const saved = await portalRequest(`/portal/settings?affiliate_id=${other}`, {
      cookie,
      form: {
        _csrf: csrf,
        id: other,
        affiliate_id: other,
        email: mine.affiliate.email,
        wallet_a_email: 'mine@example.com',
      },
    });
    expect(saved.status).toBe(303);
    const [me, them] = await Promise.all([
      api(merchant.api_secret).get(`/v1/affiliates/${mine.affiliate.id}`),
      api(merchant.api_secret).get(`/v1/affiliates/${other}`),
    ]);
    expect(me.body.unconfirmed_wallet_a_email).toBe('mine@example.com');
    expect(them.body.unconfirmed_wallet_a_email).toBeNull();

    // The other affiliate's own session does see them (so the checks above can fail).
    const theirSession = await signIn(merchant, other);
    const theirPayout = await portalRequest(`/portal/payouts/${theirs.payoutId}`, {
      cookie: theirSession.cookie,
    });
    expect(theirPayout.status).toBe(200);
    expect((await portalRequest('/portal', { cookie: theirSession.cookie })).text).toContain(
      theirs.affiliate.links[0].token,
    );
  });
});
