/**
 * After a round settles: every count the exactness test checks, for the round's merchant, plus
 * payouts and webhook deliveries. Nothing is asserted here; each difference becomes a problem
 * line that names the ids involved (a lost charge names its sale and referral as they are).
 */
import type { WebhookReceiver } from '../../services/webhook/test/support/webhook-receiver';
import type { TestMerchant } from '../support/merchant';
import type { ChaosClient } from './client';
import { finalCommission, type JourneyOutcome } from './journey';

export interface Verdict {
  /** What was checked, with the expected and seen values (printed in the summary). */
  counts: Record<string, { expected: number | string; seen: number | string }>;
  problems: string[];
}

async function allPages(client: ChaosClient, secret: string, path: string): Promise<any[]> {
  const byId = new Map<string, any>();
  for (let page = 1; ; page++) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await client.send('GET', `${path}${sep}limit=100&page=${page}`, { secret });
    for (const item of res.body.data ?? []) byId.set(item.id, item);
    if (!res.body.pagination?.next_page) break;
  }
  return [...byId.values()];
}

export interface Expected {
  journeys: number;
  charges: number;
  fullRefunds: number;
  partialRefunds: number;
  payouts: number;
  paidCommissions: number;
  /** Commissions voided by a rejected review (their journeys have no refunds). */
  rejectedCommissions: number;
  /** Journeys held for review (each flagged once and reviewed once). */
  reviews: number;
}

export function expectedOf(outcomes: JourneyOutcome[]): Expected {
  const charges = outcomes.flatMap((o) => o.plan.charges);
  const payable = outcomes.filter((o) => o.plan.charges.some((c) => finalCommission(c) > 0));
  return {
    journeys: outcomes.length,
    charges: charges.length,
    fullRefunds: charges.filter((c) => c.refund > 0 && c.refund >= c.amount).length,
    partialRefunds: charges.filter((c) => c.refund > 0 && c.refund < c.amount).length,
    payouts: payable.length,
    paidCommissions: charges.filter((c) => finalCommission(c) > 0).length,
    rejectedCommissions: charges.filter((c) => c.rejected && c.refund < c.amount).length,
    reviews: outcomes.filter((o) => o.plan.review).length,
  };
}

/** One pass of every check; the caller repeats it until it is clean or time is up. */
export async function verifyRound(
  client: ChaosClient,
  merchant: TestMerchant,
  outcomes: JourneyOutcome[],
  receiver: WebhookReceiver,
  endpointId?: string,
): Promise<Verdict> {
  const secret = merchant.api_secret;
  const e = expectedOf(outcomes);
  const counts: Verdict['counts'] = {};
  const problems: string[] = [];
  const check = (name: string, expected: number, seen: number) => {
    counts[name] = { expected, seen };
    if (expected !== seen) problems.push(`${name}: expected ${expected}, seen ${seen}`);
  };
  const byAffiliate = new Map(outcomes.map((o) => [o.affiliateId, o]));
  const retriedVisits = outcomes.filter((o) => o.visitRetried).length;

  // Referrals: one per journey, plus at most one per visit the client had to send again.
  const referrals = await allPages(client, secret, '/v1/referrals?expand[]=affiliate');
  const extra = referrals.length - e.journeys;
  counts.referrals = {
    expected: `${e.journeys} (+≤${retriedVisits} retried visits)`,
    seen: extra >= 0 && extra <= retriedVisits ? `${e.journeys} (+${extra})` : referrals.length,
  };
  if (extra < 0 || extra > retriedVisits)
    problems.push(
      `referrals: expected ${e.journeys} + at most ${retriedVisits}, seen ${referrals.length}`,
    );
  for (const r of referrals) {
    const o = byAffiliate.get(r.affiliate?.id ?? r.affiliate_id);
    if (r.id !== o?.referralId && !o?.visitRetried)
      problems.push(
        `referral ${r.id} of affiliate ${r.affiliate?.id ?? r.affiliate_id} was never made by a visit`,
      );
  }
  const state = (s: string) => referrals.filter((r) => r.conversion_state === s).length;
  check('referrals converted', e.journeys, state('conversion'));
  check('referrals left as lead', 0, state('lead'));
  check('referrals left as visitor (retried visits)', extra, state('visitor'));

  // Commissions and sales: one per charge, exact amounts, voided by full refunds, paid otherwise.
  const commissions = await allPages(client, secret, '/v1/commissions?expand[]=sale');
  const byCharge = new Map<string, any[]>();
  for (const c of commissions) {
    const id = String(c.sale?.processor_charge_id);
    byCharge.set(id, [...(byCharge.get(id) ?? []), c]);
  }
  check('commissions', e.charges, commissions.length);
  check('sales', e.charges, new Set(commissions.map((c) => c.sale?.id)).size);
  check(
    'commissions voided',
    e.fullRefunds + e.rejectedCommissions,
    commissions.filter((c) => c.state === 'voided').length,
  );
  check(
    'commissions paid',
    e.paidCommissions,
    commissions.filter((c) => c.state === 'paid').length,
  );
  check('commissions still held', 0, commissions.filter((c) => c.held === true).length);
  check(
    'sales refunded',
    e.fullRefunds + e.partialRefunds,
    commissions.filter((c) => c.sale?.refund_amount_cents > 0).length,
  );
  let wrongAmounts = 0;
  for (const o of outcomes) {
    for (const charge of o.plan.charges) {
      const found = byCharge.get(charge.id) ?? [];
      if (found.length === 0) {
        // What the referral shows of its customer, so the lost step can be told apart.
        const ref = await client.send(
          'GET',
          `/v1/referrals?processor_customer_id=${o.plan.customerId}`,
          { secret },
        );
        const states = (ref.body.data ?? []).map(
          (r: any) =>
            `${r.id} ${r.conversion_state} lead ${r.became_lead_at} conv ${r.became_conversion_at}`,
        );
        const siblings = o.plan.charges
          .map(
            (c) =>
              `${c.id}:${(byCharge.get(c.id) ?? []).map((x) => `${x.id}/${x.state}/${x.sale?.id}`).join('|') || 'none'}`,
          )
          .join(' ');
        problems.push(
          `LOST charge ${charge.id} (journey ${o.plan.index}, affiliate ${o.affiliateId}, referral ${o.referralId}, customer ${o.plan.customerId}): no commission; referral now [${states.join('; ')}]; its charges ${siblings}${o.stuck ? `; journey: ${o.stuck}` : ''}`,
        );
        continue;
      }
      if (found.length > 1)
        problems.push(
          `DOUBLED charge ${charge.id}: commissions ${found.map((c) => c.id).join(', ')}`,
        );
      const c = found[0];
      const want = finalCommission(charge);
      const ok =
        c.sale.charge_amount_cents === charge.amount &&
        c.sale.refund_amount_cents === charge.refund &&
        (want === 0 ? c.state === 'voided' : c.amount === want && c.state === 'paid');
      if (!ok) {
        wrongAmounts++;
        if (wrongAmounts <= 20)
          problems.push(
            `charge ${charge.id}: commission ${c.id} ${c.state} ${c.amount} (want ${want || 'voided'}), sale ${c.sale.charge_amount_cents}/${c.sale.refund_amount_cents} (want ${charge.amount}/${charge.refund})`,
          );
      }
    }
  }
  check('commissions with a wrong amount or state', 0, wrongAmounts);

  // Payouts: one per journey with something payable, paid once, for exactly its commissions.
  const payouts = await allPages(
    client,
    secret,
    '/v1/payouts?expand[]=commissions&expand[]=affiliate',
  );
  check('payouts', e.payouts, payouts.length);
  check('payouts paid', e.payouts, payouts.filter((p) => p.state === 'paid').length);
  const commissionById = new Map(commissions.map((c) => [c.id as string, c]));
  const payoutsOf = new Map<string, any[]>();
  for (const p of payouts)
    payoutsOf.set(p.affiliate?.id, [...(payoutsOf.get(p.affiliate?.id) ?? []), p]);
  let wrongPayouts = 0;
  for (const o of outcomes) {
    const want = o.plan.charges.map(finalCommission).filter((a) => a > 0);
    const mine = payoutsOf.get(o.affiliateId ?? '') ?? [];
    const amount = want.reduce((a, b) => a + b, 0);
    if (want.length === 0 && mine.length === 0) continue;
    // Listed: every payable commission, plus any bundled while due and voided by a refund later.
    const listed = (mine[0]?.commissions ?? []).map((c: any) => commissionById.get(c.id));
    const payableListed = listed.filter((c: any) => c && c.state !== 'voided').length;
    const strangers = listed.filter((c: any) => !c).length;
    if (
      mine.length !== 1 ||
      mine[0].amount !== amount ||
      payableListed !== want.length ||
      strangers > 0
    ) {
      wrongPayouts++;
      if (wrongPayouts <= 20) {
        // The payouts as retrieved (their commission entries with state) and the commissions as
        // the commission service shows them: where the two disagree is the lost step.
        const retrieved = await Promise.all(
          mine.map(async (p) => (await client.send('GET', `/v1/payouts/${p.id}`, { secret })).body),
        );
        const own = commissions
          .filter((c) => o.plan.charges.some((ch) => ch.id === c.sale?.processor_charge_id))
          .map(
            (c) =>
              `${c.id} ${c.sale.processor_charge_id} ${c.state} ${c.amount} paid_at ${c.paid_at}`,
          );
        problems.push(
          `affiliate ${o.affiliateId} (journey ${o.plan.index}): want one paid payout of ${amount} for ${want.length} commissions; payouts ${JSON.stringify(
            retrieved.map((p) => ({
              id: p.id,
              state: p.state,
              amount: p.amount,
              paid_at: p.paid_at,
              commissions: p.commissions?.map(
                (c: any) => `${c.id} ${c.state} ${c.amount} paid_at ${c.paid_at}`,
              ),
            })),
          )}; commission service: [${own.join('; ')}]`,
        );
      }
    }
  }
  check('affiliates whose payout is wrong', 0, wrongPayouts);

  // Affiliate counters, commission_stats and link counters.
  const affiliates = await allPages(client, secret, '/v1/affiliates?expand[]=commission_stats');
  let wrongStats = 0;
  for (const a of affiliates) {
    const o = byAffiliate.get(a.id);
    if (!o) {
      problems.push(`affiliate ${a.id} made by no journey (a doubled create?)`);
      continue;
    }
    const visitors = referrals.filter((r) => (r.affiliate?.id ?? r.affiliate_id) === a.id).length;
    const total = o.plan.charges.reduce((s, c) => s + finalCommission(c), 0);
    const gross = o.plan.charges.reduce((s, c) => s + c.amount, 0);
    const net = o.plan.charges.reduce((s, c) => s + c.amount - c.refund, 0);
    const usd = a.commission_stats?.currencies?.USD;
    const seen = [
      a.visitors,
      a.leads,
      a.conversions,
      usd?.total.cents,
      usd?.paid.cents,
      usd?.unpaid.cents,
      usd?.gross_revenue.cents,
      usd?.net_revenue.cents,
    ];
    const want = [visitors, 1, 1, total, total, 0, gross, net];
    if (JSON.stringify(seen) !== JSON.stringify(want)) {
      wrongStats++;
      if (wrongStats <= 20)
        problems.push(
          `affiliate ${a.id} (journey ${o.plan.index}, referral ${o.referralId}, link ${o.linkId}, charges ${o.plan.charges.map((c) => `${c.id} ${c.amount}/${c.refund}`).join(', ')}) ` +
            `[visitors, leads, conversions, total, paid, unpaid, gross, net] ${JSON.stringify(seen)}, want ${JSON.stringify(want)}; ` +
            `its commissions: ${commissions
              .filter((c) => o.plan.charges.some((ch) => ch.id === c.sale?.processor_charge_id))
              .map((c) => `${c.id} ${c.sale.processor_charge_id} ${c.state} ${c.amount}`)
              .join('; ')}`,
        );
    }
  }
  check('affiliates', e.journeys, affiliates.length);
  check('affiliates with wrong counters or commission_stats', 0, wrongStats);
  let wrongLinks = 0;
  await Promise.all(
    outcomes.map(async (o) => {
      if (!o.linkId) return;
      const link = (await client.send('GET', `/v1/affiliate_links/${o.linkId}`, { secret })).body;
      const visitors = referrals.filter(
        (r) => (r.affiliate?.id ?? r.affiliate_id) === o.affiliateId,
      ).length;
      if (link.visitors !== visitors || link.leads !== 1 || link.conversions !== 1) {
        wrongLinks++;
        if (wrongLinks <= 20)
          problems.push(
            `link ${o.linkId} (journey ${o.plan.index}, affiliate ${o.affiliateId}, referral ${o.referralId}): ${link.visitors}/${link.leads}/${link.conversions}, want ${visitors}/1/1`,
          );
      }
    }),
  );
  check('links with wrong counters', 0, wrongLinks);

  // Webhooks: every fact delivered, never two event ids for one fact.
  const facts = new Map<string, Map<string, Set<string>>>();
  for (const r of receiver.requests) {
    const type = r.json?.event?.type as string | undefined;
    if (!type) continue;
    const byObject = facts.get(type) ?? new Map<string, Set<string>>();
    const ids = byObject.get(r.json.object?.id) ?? new Set<string>();
    ids.add(r.json.event.id);
    byObject.set(r.json.object?.id, ids);
    facts.set(type, byObject);
  }
  const expectedTypes: Record<string, number> = {
    'affiliate.created': e.journeys,
    'referral.created': referrals.length,
    'referral.lead': e.journeys,
    'referral.converted': e.journeys,
    'sale.created': e.charges,
    'sale.refunded': e.fullRefunds + e.partialRefunds,
    'commission.created': e.charges,
    'commission.voided': e.fullRefunds + e.rejectedCommissions,
    'referral.flagged': e.reviews,
    'referral.reviewed': e.reviews,
    'commission.paid': e.paidCommissions,
    'payout.created': e.payouts,
    'payout.paid': e.payouts,
  };
  for (const [type, n] of Object.entries(expectedTypes))
    check(`webhook ${type}`, n, facts.get(type)?.size ?? 0);
  // Which facts never arrived, by the ids the journeys know, and where the delivery log has them.
  const knownIds: Record<string, (o: JourneyOutcome) => string[]> = {
    'referral.converted': (o) => (o.referralId ? [o.referralId] : []),
    'affiliate.created': (o) => (o.affiliateId ? [o.affiliateId] : []),
    'payout.paid': (o) => (o.payoutId ? [o.payoutId] : []),
  };
  for (const [type, idsOf] of Object.entries(knownIds)) {
    const seen = facts.get(type) ?? new Map();
    const missing = outcomes.flatMap(idsOf).filter((id) => !seen.has(id));
    if (missing.length)
      problems.push(`webhook ${type} never received for ${missing.slice(0, 20).join(', ')}`);
  }
  const missingByCharge = (type: string, chargeOf: (object: any) => string | undefined) => {
    const seen = new Set(
      receiver.requests
        .filter((r) => r.json?.event?.type === type)
        .map((r) => chargeOf(r.json.object)),
    );
    const missing = outcomes
      .flatMap((o) => o.plan.charges.map((c) => c.id))
      .filter((id) => !seen.has(id));
    if (missing.length)
      problems.push(
        `webhook ${type} never received for charges ${missing.slice(0, 20).join(', ')}`,
      );
  };
  missingByCharge('sale.created', (object) => object?.processor_charge_id);
  missingByCharge('commission.created', (object) => object?.sale?.processor_charge_id);
  if (endpointId) {
    const states: Record<string, unknown> = {};
    for (const state of ['pending', 'delivered', 'failed']) {
      const res = await client.send(
        'GET',
        `/v1/webhook_endpoints/${endpointId}/deliveries?state=${state}&limit=1`,
        { secret },
      );
      states[state] = res.body?.pagination?.total_count ?? `status ${res.status}`;
    }
    // A delivery that gave up is a webhook not delivered.
    if (typeof states.failed === 'number') check('webhook deliveries failed', 0, states.failed);
    counts['webhook delivery log (pending/delivered/failed)'] = {
      expected: 'all delivered',
      seen: `${states.pending}/${states.delivered}/${states.failed}`,
    };
    counts['webhook requests received (incl. retries)'] = {
      expected: '-',
      seen: receiver.requests.length,
    };
  }
  // Facts that happen once: a second event id for one is a doubled event.
  for (const type of Object.keys(expectedTypes)) {
    for (const [objectId, ids] of facts.get(type) ?? []) {
      if (ids.size > 1)
        problems.push(
          `webhook ${type} of ${objectId} came with ${ids.size} event ids: ${[...ids].join(', ')}`,
        );
    }
  }
  return { counts, problems };
}
