/**
 * Referral counts per link, affiliate and coupon over the real MongoDB-protocol server: an
 * insert batch counts once per new referral (a duplicate adds nothing) and publishes absolute
 * counts once per batch; a step counts only when its conditional write applied; and a process
 * that dies between a write and its settle loses nothing and adds nothing twice: the sweep
 * settles its reservation from the referrals' marks, and publishes again what changed lately.
 */
import { randomUUID } from 'node:crypto';
import type { ReferralCount } from '@aff/contracts';
import { StoredLinkCounts } from '../src/data/link-counts';
import type { ReferralRepository } from '../src/data/referral.repository';
import { ReferralTallies } from '../src/data/referral-tallies';
import type { TallyModels } from '../src/data/referral-tally.schema';
import type { ReferralRecord } from '../src/domain/records';
import { countedWriter, referralRecord, referralStorePerFile } from './support/referral-store';

const store = referralStorePerFile('referral_tallies_test');
const published: { merchantId: string; counts: ReferralCount[] }[] = [];
let failPublish = false;

beforeEach(() => {
  published.length = 0;
  failPublish = false;
});

/** A repository over `counted`, whose settles may be dropped (the process "dies" before them). */
function system(opts: { dieBeforeSettle?: boolean } = {}) {
  const counted = new ReferralTallies(store.tallies, async (merchantId, counts) => {
    if (failPublish) throw new Error('NATS is down');
    published.push({ merchantId, counts });
  });
  const { referrals, sweep } = countedWriter(store, counted, opts);
  return { referrals, sweep, counter: counted, links: new StoredLinkCounts(store.tallies.link) };
}

const aReferral = (
  merchantId: string,
  linkId: string | null,
  opts: { lead?: boolean; coupon?: string } = {},
) =>
  referralRecord(merchantId, {
    link_id: linkId,
    affiliate_id: `a_${merchantId}`,
    coupon_id: opts.coupon ?? null,
    lead: opts.lead,
  });

async function stored(target: keyof TallyModels, id: string) {
  const doc = await store.tallies[target].findById(id).lean().exec();
  return doc
    ? {
        v: doc.visitors ?? 0,
        l: doc.leads ?? 0,
        c: doc.conversions ?? 0,
        pending: doc.pending ?? [],
      }
    : null;
}

const leadStep = (merchant: string, referral: ReferralRecord, repo: ReferralRepository) =>
  repo.updateWithEvents(
    merchant,
    referral._id,
    { became_lead_at: new Date(), conversion_state: 'lead' },
    [],
    {},
    {
      expected: { became_lead_at: null },
      counts: { referral, delta: { visitors: 0, leads: 1, conversions: 0 } },
    },
  );

it('counts an insert batch once per new referral and publishes absolute counts once', async () => {
  const { referrals, links, counter } = system();
  const merchant = `m_${randomUUID()}`;
  const [a, b, coupon] = [`l_${randomUUID()}`, `l_${randomUUID()}`, `k_${randomUUID()}`];
  const batch = [
    aReferral(merchant, a),
    aReferral(merchant, a),
    aReferral(merchant, b, { lead: true }),
    aReferral(merchant, null, { lead: true, coupon }),
  ];
  const results = await Promise.all([
    ...batch.map((r) => referrals.insertIfAbsent(r)),
    referrals.insertIfAbsent(batch[0]!), // a redelivered visit: a duplicate, not counted
  ]);
  expect(results.filter(Boolean)).toHaveLength(4);
  expect(await links.get(merchant, a)).toEqual({ visitors: 2, leads: 0, conversions: 0 });
  expect(await links.get(merchant, b)).toEqual({ visitors: 1, leads: 1, conversions: 0 });
  expect(await stored('affiliate', `a_${merchant}`)).toEqual({ v: 4, l: 2, c: 0, pending: [] });
  expect(await stored('coupon', coupon)).toEqual({ v: 1, l: 1, c: 0, pending: [] });
  // The merchant's own document (the console overview's totals) counts the same referrals.
  expect(await stored('merchant', merchant)).toEqual({ v: 4, l: 2, c: 0, pending: [] });
  expect(await counter.merchantTotals(merchant)).toEqual({ visitors: 4, leads: 2, conversions: 0 });
  expect(await counter.merchantTotals(`m_${randomUUID()}`)).toEqual({
    visitors: 0,
    leads: 0,
    conversions: 0,
  });
  // One batch, one event, every figure absolute (the merchant's document is not published).
  expect(published).toHaveLength(1);
  expect(published[0]!.merchantId).toBe(merchant);
  expect(published[0]!.counts).toEqual(
    expect.arrayContaining([
      { target: 'link', id: a, visitors: 2, leads: 0, conversions: 0 },
      { target: 'affiliate', id: `a_${merchant}`, visitors: 4, leads: 2, conversions: 0 },
      { target: 'coupon', id: coupon, visitors: 1, leads: 1, conversions: 0 },
    ]),
  );
  expect(published[0]!.counts.map((c) => c.target).sort()).toEqual([
    'affiliate',
    'coupon',
    'link',
    'link',
  ]);
  // Another merchant reading the same link id sees nothing.
  expect(await links.get(`m_${randomUUID()}`, a)).toEqual({
    visitors: 0,
    leads: 0,
    conversions: 0,
  });
});

it('counts a step only when its conditional write applied', async () => {
  const { referrals, links } = system();
  const merchant = `m_${randomUUID()}`;
  const link = `l_${randomUUID()}`;
  const referral = aReferral(merchant, link);
  await referrals.insertWithEvents(referral, [], {});
  expect(await leadStep(merchant, referral, referrals)).toBe(true);
  expect(await leadStep(merchant, referral, referrals)).toBe(false); // the race's loser
  expect(await links.get(merchant, link)).toEqual({ visitors: 1, leads: 1, conversions: 0 });
  expect(await stored('affiliate', `a_${merchant}`)).toEqual({ v: 1, l: 1, c: 0, pending: [] });
  expect(await stored('merchant', merchant)).toEqual({ v: 1, l: 1, c: 0, pending: [] });
});

it('settles the writes of a process that died before counting them, once', async () => {
  const dying = system({ dieBeforeSettle: true });
  const merchant = `m_${randomUUID()}`;
  const link = `l_${randomUUID()}`;
  const first = aReferral(merchant, link);
  const second = aReferral(merchant, link);
  await Promise.all([
    dying.referrals.insertIfAbsent(first),
    dying.referrals.insertIfAbsent(second),
  ]);
  expect(await leadStep(merchant, first, dying.referrals)).toBe(true);
  // Written, not counted: the reservations wait on the documents.
  expect(await stored('link', link)).toMatchObject({ v: 0, l: 0 });
  expect((await stored('link', link))!.pending).toHaveLength(2);
  expect(published).toHaveLength(0);

  // A restarted process redelivers the visit (a duplicate: adds nothing), and the sweep settles.
  const { referrals, sweep, links } = system();
  expect(await referrals.insertIfAbsent(first)).toBe(false);
  expect(await sweep.run()).toBeGreaterThan(0);
  expect(await links.get(merchant, link)).toEqual({ visitors: 2, leads: 1, conversions: 0 });
  expect(await stored('affiliate', `a_${merchant}`)).toEqual({ v: 2, l: 1, c: 0, pending: [] });
  expect(await stored('merchant', merchant)).toEqual({ v: 2, l: 1, c: 0, pending: [] });
  expect(published.flatMap((p) => p.counts)).toEqual(
    expect.arrayContaining([{ target: 'link', id: link, visitors: 2, leads: 1, conversions: 0 }]),
  );
  // A second sweep finds nothing left to settle and adds nothing.
  expect(await sweep.run()).toBe(0);
  expect(await links.get(merchant, link)).toEqual({ visitors: 2, leads: 1, conversions: 0 });
});

it('settles a reservation whose write never happened as nothing', async () => {
  const { sweep, links } = system();
  const merchant = `m_${randomUUID()}`;
  const link = `l_${randomUUID()}`;
  const counted = new ReferralTallies(store.tallies, async () => undefined);
  // Reserved, then the process died before its insert.
  await counted.reserve([
    { referral: aReferral(merchant, link), delta: { visitors: 1, leads: 0, conversions: 0 } },
  ]);
  expect(await sweep.run()).toBeGreaterThanOrEqual(1);
  expect(await stored('link', link)).toEqual({ v: 0, l: 0, c: 0, pending: [] });
  expect(await links.get(merchant, link)).toEqual({ visitors: 0, leads: 0, conversions: 0 });
});

it('publishes again, from the sweep, counts whose publish failed', async () => {
  const { referrals, sweep } = system();
  const merchant = `m_${randomUUID()}`;
  const link = `l_${randomUUID()}`;
  failPublish = true;
  expect(await referrals.insertIfAbsent(aReferral(merchant, link))).toBe(true);
  expect(published).toHaveLength(0);
  failPublish = false;
  await sweep.run();
  expect(published.flatMap((p) => p.counts)).toEqual(
    expect.arrayContaining([{ target: 'link', id: link, visitors: 1, leads: 0, conversions: 0 }]),
  );
});
