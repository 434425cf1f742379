/**
 * The console's referrals page through the real gateway: it lists what `GET /v1/referrals`
 * lists for the merchant (newest first, 25 a page), filters by affiliate, state, customer e-mail,
 * flagged and review state kept in the URL (the pager keeps them); another merchant's referrals
 * never appear, not even by its affiliate's id; a bad filter value is a 400 page naming the
 * filter (never a 500, nothing listed); the affiliate filter takes an e-mail too, looked up as
 * the session's merchant only (never another merchant's affiliate of that e-mail); signed out, the page sends to the sign-in; an affiliate's
 * page links to all of its referrals here.
 */
import { randomUUID } from 'node:crypto';
import { api } from './support/http';
import { createAffiliate, referredCustomer, visitOf } from './support/journey';
import { createMerchant, type TestMerchant } from './support/merchant';
import { consoleRequest, consoleSession, heldReferral, holdingCampaign } from './support/console';
import { eventually } from './support/processor';

let merchant: TestMerchant;
let other: TestMerchant;
let owner: { cookie: string; csrf: string };
let ann: { id: string; email: string };
let held: Awaited<ReturnType<typeof heldReferral>>;
let leadId: string;
let foreign: { affiliateId: string; email: string; referralId: string };

/** Referral ids of the REST list (newest first), as the merchant's API secret sees them. */
const restIds = async (query: string, m = merchant) => {
  const res = await api(m.api_secret).get(`/v1/referrals?${query}`);
  expect(res.status).toBe(200);
  return { ids: (res.body.data as { id: string }[]).map((r) => r.id), body: res.body };
};
/** Row ids in page order. */
const shown = (text: string) => [...text.matchAll(/<tr data-id="([^"]+)"/g)].map((m) => m[1]!);
const page = async (query: string, cookie = owner.cookie) => {
  const res = await consoleRequest(`/console/referrals${query ? `?${query}` : ''}`, { cookie });
  expect(res.status).toBe(200);
  return res.text;
};

beforeAll(async () => {
  [merchant, other] = await Promise.all([
    createMerchant({ rateLimit: 100_000 }),
    createMerchant({ rateLimit: 100_000 }),
  ]);
  owner = await consoleSession(merchant.merchant_id, 'owner');
  // Ann: one lead (a customer) and 26 visitors, so her referrals fill more than one page.
  ann = await createAffiliate(merchant, {
    first_name: 'Ann',
    last_name: `Ref${randomUUID().slice(0, 6)}`,
  });
  const customer = await referredCustomer(merchant, ann);
  leadId = customer.referralId;
  for (let i = 0; i < 26; i++) await visitOf(merchant, (ann as any).links[0].token);
  // Another affiliate's referral, held for review (flagged: disposable customer e-mail).
  held = await heldReferral(merchant, await holdingCampaign(merchant), { first_name: 'Hella' });
  // Another merchant's affiliate and referral.
  const theirs = await createAffiliate(other, { first_name: 'Otto' });
  foreign = {
    affiliateId: theirs.id,
    email: theirs.email,
    referralId: await visitOf(other, theirs.links[0].token),
  };
  await eventually(async () =>
    (await restIds('limit=1')).body.pagination.total_count === 28 &&
    (await restIds('limit=1', other)).body.pagination.total_count === 1
      ? true
      : undefined,
  );
}, 120_000);

it('lists what the REST list lists, newest first, 25 a page, with the affiliate linked', async () => {
  const first = await page('');
  const rest1 = await restIds('limit=25');
  expect(shown(first)).toEqual(rest1.ids);
  expect(first).toContain('Page 1 of 2');
  expect(first).toContain('href="/console/referrals?page=2" rel="next"');
  expect(first).toContain(`href="/console/affiliates/${ann.id}"`);
  expect(first).toContain(`href="/console/affiliates/${held.affiliate.id}"`); // the newest
  expect(first).toContain('aria-current="page"'); // in the navigation
  const second = await page('page=2');
  expect(shown(second)).toEqual((await restIds('limit=25&page=2')).ids);
  expect(shown(second)).toHaveLength(3);
  expect(second).toContain('href="/console/referrals" rel="prev"');
  // Nothing of the other merchant, on any page.
  for (const text of [first, second]) {
    expect(text).not.toContain(foreign.referralId);
    expect(text).not.toContain(foreign.affiliateId);
  }
}, 60_000);

it("filters by affiliate, kept by the pager: only that affiliate's referrals", async () => {
  const annIds = [
    ...(await restIds(`affiliate_id=${ann.id}&limit=25`)).ids,
    ...(await restIds(`affiliate_id=${ann.id}&limit=25&page=2`)).ids,
  ];
  expect(annIds).toHaveLength(27);
  const one = await page(`affiliate_id=${ann.id}`);
  expect(shown(one)).toEqual(annIds.slice(0, 25));
  expect(one).toContain(`value="${ann.id}"`);
  expect(one).toContain(`href="/console/referrals?affiliate_id=${ann.id}&amp;page=2" rel="next"`);
  const two = await page(`affiliate_id=${ann.id}&page=2`);
  expect(shown(two)).toEqual(annIds.slice(25));
  expect(two).toContain(`href="/console/referrals?affiliate_id=${ann.id}" rel="prev"`);
  expect(two).not.toContain(held.referralId);
  // The held one's affiliate: its one referral only.
  expect(shown(await page(`affiliate_id=${held.affiliate.id}`))).toEqual([held.referralId]);
}, 60_000);

it('filters by state, customer e-mail, flagged and review state, as the REST list does', async () => {
  expect(shown(await page(`affiliate_id=${ann.id}&conversion_state=lead`))).toEqual([leadId]);
  const visitors = await page(`affiliate_id=${ann.id}&conversion_state=visitor`);
  expect(shown(visitors)).toHaveLength(25);
  expect(visitors).not.toContain(leadId);
  expect(visitors).toMatch(/<option value="visitor" selected>/);
  expect(shown(await page(`email=${encodeURIComponent(held.customer.email)}`))).toEqual([
    held.referralId,
  ]);
  const flagged = await page('flagged=true');
  expect(shown(flagged)).toEqual([held.referralId]);
  expect(flagged).toContain('Flagged: disposable_email');
  expect(shown(await page('review_state=open'))).toEqual([held.referralId]);
  expect(shown(await page('review_state=approved'))).toEqual([]);
  expect(await page(`flagged=false&affiliate_id=${held.affiliate.id}`)).toContain(
    'No referrals found.',
  );
  // The filter form's empty fields (every field is sent) filter nothing.
  const blank = await page('affiliate_id=&conversion_state=&email=&flagged=&review_state=');
  expect(shown(blank)).toHaveLength(25);
}, 60_000);

it("never shows another merchant's referrals, not even by that merchant's affiliate id", async () => {
  const byTheirId = await page(`affiliate_id=${foreign.affiliateId}`);
  expect(shown(byTheirId)).toEqual([]);
  expect(byTheirId).toContain('No referrals found.');
  // Their own console shows theirs, and none of ours.
  const theirs = await consoleSession(other.merchant_id, 'viewer');
  const list = await page('', theirs.cookie);
  expect(shown(list)).toEqual([foreign.referralId]);
  expect(list).not.toContain(ann.id);
}, 60_000);

it('answers a bad filter value with a 400 page naming the filter, never a 500', async () => {
  const cases: [string, string][] = [
    ['conversion_state=bogus', 'conversion_state'],
    ['flagged=yes', 'flagged'],
    ['review_state=pending', 'review_state'],
    ['affiliate_id=%3Cb%3Enot-an-id', 'affiliate_id'],
    ['affiliate_id=ann%20ref%40example.com', 'affiliate_id'],
    ['affiliate_id=a%40b%40example.com', 'affiliate_id'],
    ['affiliate_id=%40', 'affiliate_id'],
    ['email=not-an-address', 'email'],
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['flagged[]=true', 'flagged'],
    ['flagged=true&flagged=false', 'flagged'],
    ['review_state[x]=open', 'review_state'],
  ];
  for (const [query, key] of cases) {
    const res = await consoleRequest(`/console/referrals?${query}`, { cookie: owner.cookie });
    expect([query, res.status]).toEqual([query, 400]);
    expect(res.text).toContain('<h2>Bad filter</h2>');
    expect(res.text).toContain(`<code>${key}</code>`);
    expect(res.text).toContain('lang="en"');
    expect(res.text).not.toContain('<b>');
    expect(shown(res.text)).toEqual([]);
  }
}, 60_000);

it('sends a signed-out browser to the sign-in; a viewer sees the same list, read-only', async () => {
  const out = await consoleRequest('/console/referrals?flagged=true');
  expect(out.status).toBe(303);
  expect(out.location).toBe('/console/sign-in');
  const viewer = await consoleSession(merchant.merchant_id, 'viewer');
  const seen = await page('flagged=true', viewer.cookie);
  expect(shown(seen)).toEqual([held.referralId]);
  expect(seen).not.toMatch(/<form[^>]*method="post"[^>]*action="\/console\/referrals/);
}, 60_000);

it("links an affiliate's page to all of its referrals here", async () => {
  const res = await consoleRequest(`/console/affiliates/${ann.id}`, { cookie: owner.cookie });
  expect(res.status).toBe(200);
  expect(res.text).toMatch(
    new RegExp(`<a\\s+href="/console/referrals\\?affiliate_id=${ann.id}"\\s*>All 27 referrals</a`),
  );
  expect(res.text).toContain('The newest 10 of 27.');
}, 60_000);

it("filters by an affiliate's e-mail: exactly what the REST list gives for its id", async () => {
  const annIds = [
    ...(await restIds(`affiliate_id=${ann.id}&limit=25`)).ids,
    ...(await restIds(`affiliate_id=${ann.id}&limit=25&page=2`)).ids,
  ];
  expect(annIds).toHaveLength(27);
  // Typed as a merchant might: other case, spaces around it.
  const typed = encodeURIComponent(` ${ann.email.toUpperCase()} `);
  const one = await page(`affiliate_id=${typed}`);
  expect(shown(one)).toEqual(annIds.slice(0, 25));
  expect(one).toContain('Affiliate (id or e-mail)');
  expect(one).toContain(`value="${ann.email}"`); // the form keeps it, normalised
  expect(one).toContain('Page 1 of 2');
  // The pager keeps the e-mail (not the id it was resolved to).
  const next = one.match(/href="([^"]*)" rel="next"/)?.[1]?.replace(/&amp;/g, '&');
  expect(next).toBeDefined();
  expect(new URL(next!, 'http://x').searchParams.get('affiliate_id')).toBe(ann.email);
  const two = await page(new URL(next!, 'http://x').search.slice(1));
  expect(shown(two)).toEqual(annIds.slice(25));
  // With another filter, as with the id.
  expect(shown(await page(`affiliate_id=${typed}&conversion_state=lead`))).toEqual([leadId]);
  const heldEmail = encodeURIComponent(held.affiliate.email);
  expect(shown(await page(`affiliate_id=${heldEmail}`))).toEqual([held.referralId]);
}, 60_000);

it('an e-mail of no affiliate of this merchant lists nothing, never the unfiltered list', async () => {
  for (const email of [`nobody-${randomUUID()}@example.com`, foreign.email]) {
    const text = await page(`affiliate_id=${encodeURIComponent(email)}`);
    expect([email, shown(text)]).toEqual([email, []]);
    expect(text).toContain('No referrals found.');
    expect(text).not.toContain(foreign.referralId);
  }
}, 60_000);

it("looks the e-mail up as the session's merchant: the same e-mail elsewhere is not ours", async () => {
  // The other merchant gets an affiliate with Ann's e-mail (unique per merchant only).
  const twin = await createAffiliate(other, { first_name: 'Twin', email: ann.email });
  const twinReferral = await visitOf(other, twin.links[0].token);
  const theirs = await consoleSession(other.merchant_id, 'viewer');
  const byEmail = `affiliate_id=${encodeURIComponent(ann.email)}`;
  await eventually(async () =>
    shown(await page(byEmail, theirs.cookie)).includes(twinReferral) ? true : undefined,
  );
  expect(shown(await page(byEmail, theirs.cookie))).toEqual([twinReferral]);
  const ours = await page(byEmail);
  expect(shown(ours)).toHaveLength(25);
  expect(ours).not.toContain(twinReferral);
  expect(ours).not.toContain(twin.id);
  expect(ours).toContain('Page 1 of 2');
}, 60_000);
