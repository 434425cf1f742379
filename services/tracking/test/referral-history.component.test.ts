/**
 * getReferralHistory through tracking's real RPC entry point (started by the kernel, over the
 * MongoDB-protocol server the tests run on): a merchant's visitors, leads and conversions at each
 * of the last UTC midnights are its referrals created / became lead / became conversion strictly
 * before that midnight; another merchant's referrals and today's count nowhere; the input is
 * bounded (1 to 31 days).
 */
import { randomUUID } from 'node:crypto';
import { OPERATIONS } from '@aff/contracts';
import { callInternal } from '@aff/messaging';
import { newReferral } from '../src/domain/new-referral';
import { trackingService } from '../src/service';
import { componentPerFile, withComponentDb } from '../../../test/support/component';
import { affiliateView, campaignView } from '../../../test/support/view-fixtures';

const sut = componentPerFile(trackingService);

const HOUR = 3_600_000;
const now = new Date();
/** M(k): the UTC midnight k days before today's (M(0) is the start of today). */
const M = (k: number) =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - k * 24 * HOUR);

/** Stores referrals of `merchantId` made at the given times (as a visit, a lead, a conversion). */
async function referralsOf(
  merchantId: string,
  steps: { created: Date; lead?: Date; conversion?: Date }[],
) {
  const campaign = campaignView();
  const affiliate = affiliateView({ campaign });
  const docs = steps.map(({ created, lead, conversion }) => ({
    ...newReferral(merchantId, { link: null, affiliate, campaign }, created, {
      conversion_state: conversion ? 'conversion' : lead ? 'lead' : 'visitor',
      became_lead_at: lead ?? null,
      became_conversion_at: conversion ?? null,
      created_at: created,
      updated_at: conversion ?? lead ?? created,
    }),
    pending_events: [],
  }));
  await withComponentDb(sut.component, async (mongo) => {
    await mongo.collection('referrals').insertMany(docs as never[]);
  });
}

const history = (merchantId: string, days: number) =>
  callInternal(
    sut.rpc,
    OPERATIONS.getReferralHistory,
    { merchant_id: merchantId, days },
    randomUUID(),
  );

it("counts the merchant's referrals by their dates before each of the last midnights", async () => {
  const merchant = randomUUID();
  const other = randomUUID();
  await referralsOf(merchant, [
    // A visit 10 days ago at noon, a lead 8 days ago, a conversion 5 days ago.
    {
      created: new Date(M(10).getTime() + 12 * HOUR),
      lead: new Date(M(8).getTime() + 9 * HOUR),
      conversion: new Date(M(5).getTime() + 15 * HOUR),
    },
    // Exactly at a midnight: counted from the next one on (strictly before).
    { created: M(4) },
    { created: new Date(M(3).getTime() + HOUR) },
    { created: new Date(M(3).getTime() + 23 * HOUR), lead: new Date(M(1).getTime() + 10 * HOUR) },
    // Today: before no midnight yet.
    { created: now, lead: now },
  ]);
  // Another tenant's older and busier history: counted nowhere above.
  await referralsOf(other, [
    { created: M(20), lead: M(15), conversion: M(15) },
    { created: M(20), lead: M(15), conversion: M(15) },
  ]);

  const { midnights } = await history(merchant, 12);
  expect(midnights.map((m) => m.at)).toEqual(
    Array.from({ length: 12 }, (_, i) => M(11 - i).toISOString()),
  );
  expect(midnights.map((m) => [m.visitors, m.leads, m.conversions])).toEqual([
    [0, 0, 0], // M(11)
    [0, 0, 0], // M(10)
    [1, 0, 0], // M(9): the visit of day 10
    [1, 0, 0], // M(8): its lead is later that day
    [1, 1, 0], // M(7)
    [1, 1, 0], // M(6)
    [1, 1, 0], // M(5)
    [1, 1, 1], // M(4): the conversion; the referral made at M(4) itself not yet
    [2, 1, 1], // M(3)
    [4, 1, 1], // M(2)
    [4, 1, 1], // M(1)
    [4, 2, 1], // M(0): the lead of day 1; today's referral not
  ]);
  const theirs = await history(other, 1);
  expect(theirs.midnights).toEqual([
    { at: M(0).toISOString(), visitors: 2, leads: 2, conversions: 2 },
  ]);
});

it('answers zeros for a merchant without referrals, and 400 outside 1 to 31 days', async () => {
  const { midnights } = await history(randomUUID(), 31);
  expect(midnights).toHaveLength(31);
  expect(midnights.every((m) => m.visitors + m.leads + m.conversions === 0)).toBe(true);
  for (const days of [0, 32, 1.5])
    await expect(history(randomUUID(), days)).rejects.toMatchObject({ status: 400 });
});
