/**
 * Per event type, the documents the system writes that no retention rule prunes: one visit, one
 * lead, one customer and one charge driven through the gateway, with every collection's count
 * read before and after each (after the system settles), and each new document set against the
 * rules of docs/retention.md.
 */
import { randomUUID } from 'node:crypto';
import type mongoose from 'mongoose';
import { SYSTEM_PROCESSES } from '../system';
import { call, sendProcessor, type BenchMerchant } from './money-bench';

/**
 * Collections a retention rule prunes (docs/retention.md; a test keeps the two in step); the
 * rest are records or bounded.
 */
export const PRUNED = new Set([
  'processed_events',
  'portal_sign_ins',
  'address_hits',
  'sent_mails',
  'sso_tokens',
  'email_confirmations',
  'wallet_confirmations',
  'idempotency_keys',
  'portal_sessions',
  'webhook_deliveries',
  'webhook_attempts',
  'webhook_schedule',
  'console_links',
  'console_sessions',
  'console_form_keys',
  'console_sign_in_counts',
  'console_stat_days',
]);

type Counts = Map<string, number>;

async function countAll(mongo: mongoose.Connection): Promise<Counts> {
  const counts: Counts = new Map();
  for (const db of ['gateway', ...SYSTEM_PROCESSES.filter((n) => n !== 'gateway')]) {
    const handle = mongo.useDb(db).db!;
    for (const { name } of await handle.listCollections().toArray())
      counts.set(`${db}.${name}`, await handle.collection(name).estimatedDocumentCount());
  }
  return counts;
}

/** Waits until two reads a second apart agree (events have settled), at most `maxMs`. */
async function settled(mongo: mongoose.Connection, maxMs = 15_000): Promise<Counts> {
  let last = await countAll(mongo);
  for (const started = Date.now(); Date.now() - started < maxMs;) {
    await new Promise((r) => setTimeout(r, 1_500));
    const now = await countAll(mongo);
    if ([...now].every(([k, v]) => last.get(k) === v) && now.size === last.size) return now;
    last = now;
  }
  return last;
}

export interface EventGrowth {
  event: string;
  kept: string[];
  pruned: string[];
  error?: string;
}

export async function growthPerEvent(
  mongo: mongoose.Connection,
  gatewayUrl: string,
  merchant: BenchMerchant,
  token: string,
): Promise<EventGrowth[]> {
  const out: EventGrowth[] = [];
  let referralId = '';
  const customerId = `cus_scale_${randomUUID()}`;
  const steps: [string, () => Promise<void>][] = [
    [
      'visit (POST /t/v1/visits)',
      async () => {
        const visit = await call(gatewayUrl, '/t/v1/visits', {
          method: 'POST',
          body: JSON.stringify({ key: merchant.public_key, token }),
        });
        referralId = visit.referral.id as string;
      },
    ],
    [
      'lead (POST /t/v1/leads)',
      () =>
        call(gatewayUrl, '/t/v1/leads', {
          method: 'POST',
          body: JSON.stringify({
            key: merchant.public_key,
            referral: referralId,
            email: `scale-${randomUUID()}@example.com`,
          }),
        }),
    ],
    [
      'customer.created (processor)',
      () =>
        sendProcessor(gatewayUrl, merchant, 'customer.created', {
          id: customerId,
          email: `scale-customer-${randomUUID()}@example.com`,
          metadata: { referral: referralId },
        }),
    ],
    [
      'charge.succeeded (processor)',
      () =>
        sendProcessor(gatewayUrl, merchant, 'charge.succeeded', {
          id: `ch_scale_${randomUUID()}`,
          customer: customerId,
          amount: 5000,
          amount_refunded: 0,
          currency: 'usd',
          tax: 0,
        }),
    ],
  ];
  let before = await settled(mongo);
  for (const [event, run] of steps) {
    const growth: EventGrowth = { event, kept: [], pruned: [] };
    out.push(growth);
    try {
      await run();
    } catch (error) {
      growth.error = error instanceof Error ? error.message : String(error);
    }
    const after = await settled(mongo);
    for (const [name, n] of after) {
      const added = n - (before.get(name) ?? 0);
      if (added <= 0) continue;
      const collection = name.slice(name.indexOf('.') + 1);
      (PRUNED.has(collection) ? growth.pruned : growth.kept).push(`${name} +${added}`);
    }
    before = after;
  }
  return out;
}
