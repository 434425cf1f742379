/**
 * One journey of the chaos load, through the real gateway as a merchant's site, its payment
 * processor and its back office would drive it: an affiliate, a visit on its link, the
 * customer (a lead), one to three charges, maybe a refund, then a payout generated for the
 * affiliate once its commissions are due, and that payout paid. Every write is retried
 * unchanged (ChaosClient); what the journey saw is kept for the final checks.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { signedProcessorEvent } from '../support/processor';
import type { TestMerchant } from '../support/merchant';
import type { ChaosClient } from './client';

export const PERCENT = 20;

export interface PlannedCharge {
  id: string;
  amount: number;
  /** Total refunded by the end (0: none; = amount: full refund). */
  refund: number;
  /** Its journey's held referral is rejected: the commission ends voided. */
  rejected?: boolean;
}

export interface JourneyPlan {
  index: number;
  tag: string;
  customerId: string;
  charges: PlannedCharge[];
  /**
   * A held journey: its customer's e-mail is disposable (the chaos campaign holds those), so
   * its commissions are created held; the journey then approves or rejects its referral.
   */
  review?: 'approve' | 'reject';
}

/**
 * Deterministic from the index: 1–3 charges; every 10th refunded in full, the next by half;
 * two in ten held for review (fraud policy), one of them approved and one rejected.
 */
export function planJourney(round: string, index: number): JourneyPlan {
  const tag = `${round}_${index}`;
  const count = 1 + (index % 3);
  const review = index % 10 === 4 ? 'approve' : index % 10 === 7 ? 'reject' : undefined;
  const charges = Array.from({ length: count }, (_, c) => {
    const amount = 2_000 + ((index * 37) % 5_000) + c * 101;
    let refund = 0;
    if (index % 10 === 0 && c === 0) refund = amount;
    if (index % 10 === 1 && c === count - 1) refund = Math.floor(amount / 2);
    return { id: `ch_chaos_${tag}_${c}`, amount, refund, rejected: review === 'reject' };
  });
  return { index, tag, customerId: `cus_chaos_${tag}`, charges, ...(review ? { review } : {}) };
}

export const baseCommission = (c: PlannedCharge) => Math.round((c.amount * PERCENT) / 100);
/** What the commission of a charge ends at; 0 means voided (refunded in full). */
export function finalCommission(c: PlannedCharge): number {
  if (c.refund >= c.amount || c.rejected) return 0;
  return Math.round((baseCommission(c) * (c.amount - c.refund)) / c.amount);
}

export interface JourneyOutcome {
  plan: JourneyPlan;
  affiliateId?: string;
  linkId?: string;
  referralId?: string;
  /** The visit was sent more than once: the first send may have made a referral too. */
  visitRetried: boolean;
  /** Its affiliate create, retried with the same Idempotency-Key, ran twice (422 the 2nd time). */
  keyRanTwice?: boolean;
  payoutId?: string;
  /** Where it stopped, when it did not finish (the final checks say what is missing). */
  stuck?: string;
  finishedAt?: number;
}

export interface JourneyContext {
  client: ChaosClient;
  merchant: TestMerchant;
  campaignId: string;
  /** How long a journey waits for its commissions or payout before it records itself stuck. */
  settleMs: number;
}

function processorEvent(ctx: JourneyContext, eventId: string, type: string, object: object) {
  // A retry is the processor redelivering the same event: same id, body and signature.
  const signed = signedProcessorEvent(ctx.merchant.processor_signing_secret, {
    id: eventId,
    type,
    object,
    account: 'acct_chaos',
  });
  return ctx.client
    .send('POST', `/hooks/processor/${ctx.merchant.public_key}`, signed)
    .then((res) => expectStatus(res, 200, `${type} ${eventId}`));
}

function expectStatus(res: { status: number; body: unknown }, status: number, what: string) {
  if (res.status !== status)
    throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return res.body as any;
}

const api = (ctx: JourneyContext, key?: string) => ({
  secret: ctx.merchant.api_secret,
  headers: key ? { 'idempotency-key': key } : undefined,
});

async function waitUntil<T>(
  ms: number,
  check: () => Promise<T | undefined>,
): Promise<T | undefined> {
  const deadline = Date.now() + ms;
  for (let i = 0; ; i++) {
    const value = await check();
    if (value !== undefined || Date.now() > deadline) return value;
    // Polls back off: a thousand journeys waiting must not crowd out the ones still writing.
    await delay(Math.min(2_000 + 1_000 * i, 15_000) + Math.random() * 1_000);
  }
}

export async function runJourney(ctx: JourneyContext, plan: JourneyPlan): Promise<JourneyOutcome> {
  const out: JourneyOutcome = { plan, visitRetried: false };
  const { client } = ctx;
  try {
    const email = `chaos-${plan.tag}@example.com`;
    let createRetried = false;
    const created = await client.send(
      'POST',
      '/v1/affiliates',
      {
        ...api(ctx, `chaos-affiliate-${plan.tag}`),
        form: {
          first_name: 'Chaos',
          last_name: `J${plan.index}`,
          email,
          campaign_id: ctx.campaignId,
        },
      },
      (maybeDone) => (createRetried ||= maybeDone),
    );
    let affiliate: any;
    if (
      created.status === 422 &&
      createRetried &&
      JSON.stringify(created.body).includes('Email has already been taken')
    ) {
      // The first send made the affiliate, but its key's answer was never stored (the gateway
      // died first) and the retry ran again: a finding, counted; the journey goes on with it.
      out.keyRanTwice = true;
      const found = await client.send(
        'GET',
        `/v1/affiliates?email=${encodeURIComponent(email)}&expand[]=links`,
        api(ctx),
      );
      affiliate = expectStatus(found, 200, 'affiliate by email').data?.[0];
      if (!affiliate) throw new Error(`affiliate ${email}: 422 taken, yet not found by email`);
    } else affiliate = expectStatus(created, 200, 'affiliate');
    out.affiliateId = affiliate.id;
    out.linkId = affiliate.links[0].id;

    const visit = expectStatus(
      await client.send(
        'POST',
        '/t/v1/visits',
        { json: { key: ctx.merchant.public_key, token: affiliate.links[0].token } },
        (maybeDone) => (out.visitRetried ||= maybeDone),
      ),
      200,
      'visit',
    );
    out.referralId = visit.referral.id;

    await processorEvent(ctx, `evt_chaos_${plan.tag}_customer`, 'customer.created', {
      id: plan.customerId,
      // mailinator.com is on the disposable-mail list: the chaos campaign holds such referrals.
      email: `buyer-${plan.tag}@${plan.review ? 'mailinator.com' : 'example.com'}`,
      name: `Buyer ${plan.tag}`,
      metadata: { referral: visit.referral.id },
    });
    for (const [c, charge] of plan.charges.entries()) {
      const object = {
        id: charge.id,
        customer: plan.customerId,
        amount: charge.amount,
        amount_refunded: 0,
        currency: 'usd',
        created: Math.floor(Date.now() / 1000),
        tax: 0,
        metadata: {},
      };
      await processorEvent(ctx, `evt_chaos_${plan.tag}_charge_${c}`, 'charge.succeeded', object);
      if (charge.refund > 0)
        await processorEvent(ctx, `evt_chaos_${plan.tag}_refund_${c}`, 'charge.refunded', {
          ...object,
          amount_refunded: charge.refund,
        });
    }

    if (plan.review && !(await reviewWhenHeld(ctx, plan, affiliate.id, out))) return out;

    // Its commissions, as the commission service shows them, final (refunds applied) and due.
    const settled = await waitUntil(ctx.settleMs, async () => {
      const res = await client.send(
        'GET',
        `/v1/commissions?affiliate_id=${affiliate.id}&limit=100&expand[]=sale`,
        api(ctx),
      );
      const list: any[] = res.body.data ?? [];
      if (list.length !== plan.charges.length) return undefined;
      const ok = plan.charges.every((charge) => {
        const c = list.find((x) => x.sale?.processor_charge_id === charge.id);
        const want = finalCommission(charge);
        if (!c) return false;
        return want === 0 ? c.state === 'voided' : c.state === 'due' && c.amount === want;
      });
      return ok ? list : undefined;
    });
    if (!settled) {
      out.stuck = 'commissions never settled';
      return out;
    }
    const payable = settled.filter((c) => c.state !== 'voided');
    if (payable.length === 0) {
      out.finishedAt = Date.now();
      return out;
    }
    const wantIds = payable.map((c) => c.id as string).sort();
    const wantAmount = payable.reduce((sum, c) => sum + (c.amount as number), 0);

    // Generate until the affiliate's open payout lists exactly its payable commissions at their
    // final amounts (the payout service learns them from events, so it may lag the list above).
    let runs = 0;
    const payout = await waitUntil(ctx.settleMs, async () => {
      const res = await client.send(
        'GET',
        `/v1/payouts?affiliate_id=${affiliate.id}&expand[]=commissions`,
        api(ctx),
      );
      const open = (res.body.data ?? []).find((p: any) => ['pending', 'due'].includes(p.state));
      // A commission bundled while due and voided by its refund afterwards stays listed (its
      // amount no longer counts): the payout is right when it lists every payable commission.
      const ids = new Set((open?.commissions ?? []).map((c: any) => c.id as string));
      const missing = wantIds.filter((id) => !ids.has(id));
      if (open && missing.length === 0 && open.amount === wantAmount) return open;
      if (!open || missing.length > 0) {
        runs++;
        expectStatus(
          await client.send('POST', '/v1/payouts/generate', {
            ...api(ctx, `chaos-generate-${plan.tag}-${runs}`),
            json: { affiliate_id: affiliate.id },
          }),
          200,
          'generate',
        );
      }
      return undefined;
    });
    if (!payout) {
      out.stuck = 'payout never listed its commissions';
      return out;
    }
    out.payoutId = payout.id;
    const paid = await client.send('PUT', `/v1/payouts/${payout.id}/pay`, {
      ...api(ctx, `chaos-pay-${payout.id}`),
    });
    // 422 "already paid" only after a retry whose first send took effect.
    if (paid.status !== 200 && paid.status !== 422) expectStatus(paid, 200, 'pay');
    out.finishedAt = Date.now();
    return out;
  } catch (error) {
    out.stuck = error instanceof Error ? error.message : String(error);
    return out;
  }
}

/**
 * A held journey waits until every one of its commissions exists and is held (tracking opened
 * the review before the charges, so each was created held), then decides. A retry whose first
 * send took effect but whose answer was lost gets 422 "already been reviewed": that is done too.
 */
async function reviewWhenHeld(
  ctx: JourneyContext,
  plan: JourneyPlan,
  affiliateId: string,
  out: JourneyOutcome,
): Promise<boolean> {
  const held = await waitUntil(ctx.settleMs, async () => {
    const res = await ctx.client.send(
      'GET',
      `/v1/commissions?affiliate_id=${affiliateId}&limit=100`,
      api(ctx),
    );
    const list: any[] = res.body.data ?? [];
    return list.length === plan.charges.length && list.every((c) => c.held === true)
      ? list
      : undefined;
  });
  if (!held) {
    out.stuck = 'commissions never held';
    return false;
  }
  const res = await ctx.client.send('POST', `/v1/referrals/${out.referralId}/review`, {
    ...api(ctx, `chaos-review-${plan.tag}`),
    json: { decision: plan.review },
  });
  if (res.status !== 200 && !JSON.stringify(res.body).includes('already been reviewed'))
    expectStatus(res, 200, 'review');
  return true;
}
