/**
 * Every service prunes its per-event and per-request collections (docs/retention.md): with the
 * prune interval at half a second, documents past their retention disappear from tracking's
 * processed-event records, the affiliate service's mail claims, magic-link and e-mail
 * confirmation tokens, the gateway's idempotency keys and the web service's portal and console
 * sessions, console sign-in links and the overview's daily readings,
 * while those still kept stay. Without a service's job its old documents would stay forever.
 */
import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { startIsolatedSystem, type IsolatedSystem } from './support/isolated-system';
import { eventually } from './support/processor';

const DAY_MS = 86_400_000;
const longAgo = new Date(Date.now() - 40 * DAY_MS);
const soon = new Date(Date.now() + DAY_MS);

let isolated: IsolatedSystem;
let connection: mongoose.Connection;
beforeAll(async () => {
  isolated = await startIsolatedSystem({ env: { RETENTION_PRUNE_MS: '500' } });
  connection = await mongoose.createConnection(isolated.infra.mongoUrl).asPromise();
}, 120_000);
afterAll(async () => {
  await connection?.close();
  await isolated?.stop();
});

/** One collection's old and current documents, by database (service) and collection name. */
const cases: { service: string; collection: string; doc: (at: Date) => Record<string, unknown> }[] =
  [
    { service: 'tracking', collection: 'processed_events', doc: (at) => ({ processed_at: at }) },
    {
      service: 'tracking',
      collection: 'portal_sign_ins',
      doc: (at) => ({ merchant_id: 'm', affiliate_id: 'a', address_hash: 'h', signed_in_at: at }),
    },
    {
      service: 'tracking',
      collection: 'address_hits',
      doc: (at) => ({
        merchant_id: 'm',
        affiliate_id: 'a',
        address_hash: 'h',
        hits: [],
        version: 1,
        updated_at: at,
      }),
    },
    {
      service: 'affiliate',
      collection: 'sent_mails',
      doc: (at) => ({ state: 'sent', claim: 'c', claimed_at: at, sent_at: at }),
    },
    {
      service: 'affiliate',
      collection: 'sso_tokens',
      doc: (at) => ({ merchant_id: 'm', token_hash: randomUUID(), expires_at: at, used_at: null }),
    },
    {
      service: 'affiliate',
      collection: 'email_confirmations',
      doc: (at) => ({
        merchant_id: 'm',
        email: 'e@example.com',
        token_hash: randomUUID(),
        expires_at: at,
      }),
    },
    {
      service: 'affiliate',
      collection: 'wallet_confirmations',
      doc: (at) => ({
        merchant_id: 'm',
        affiliate_id: 'a',
        wallet: 'a',
        email: 'w@example.com',
        token_hash: randomUUID(),
        expires_at: at,
      }),
    },
    {
      service: 'gateway',
      collection: 'idempotency_keys',
      doc: (at) => ({ fingerprint: 'f', request: 'r', answer: null, expires_at: at }),
    },
    {
      service: 'web',
      collection: 'portal_sessions',
      doc: (at) => ({
        merchant_id: 'm',
        affiliate_id: 'a',
        name: 'n',
        csrf_token: 't',
        created_at: at,
        expires_at: at,
      }),
    },
    {
      service: 'web',
      collection: 'console_sessions',
      doc: (at) => ({ user_id: 'u', csrf_token: 't', created_at: at, expires_at: at }),
    },
    {
      service: 'web',
      collection: 'console_links',
      doc: (at) => ({ user_id: 'u', created_at: at, expires_at: at }),
    },
    {
      service: 'web',
      collection: 'console_sign_in_counts',
      doc: (at) => ({ count: 1, expires_at: at }),
    },
    {
      service: 'web',
      collection: 'console_form_keys',
      doc: (at) => ({
        merchant_id: 'm',
        user_id: 'u',
        fingerprint: 'f',
        request: 'POST /console/campaigns',
        answer: { status: 303, location: '/console/campaigns' },
        created_at: at,
        expires_at: at,
      }),
    },
    {
      service: 'web',
      collection: 'console_stat_days',
      doc: (at) => ({ merchant_id: 'm', day: at.toISOString().slice(0, 10), at, totals: {} }),
    },
  ];

it.each(cases)('$service prunes $collection past its retention', async (c) => {
  // The gateway's database is shared with the other tests' system; the others are this system's.
  const db = connection.useDb(
    c.service === 'gateway' ? 'gateway' : `${isolated.databasePrefix}${c.service}`,
  );
  const collection = db.collection<{ _id: string }>(c.collection);
  const old = `old-${randomUUID()}`;
  const kept = `kept-${randomUUID()}`;
  // A current record of a handled event is "now"; a current token or session expires later.
  const current = ['processed_events', 'sent_mails', 'portal_sign_ins', 'address_hits'].includes(
    c.collection,
  )
    ? new Date()
    : soon;
  await collection.insertMany([
    { _id: old, ...c.doc(longAgo) },
    { _id: kept, ...c.doc(current) },
  ]);
  await eventually(async () =>
    (await collection.countDocuments({ _id: old })) === 0 ? true : undefined,
  );
  expect(await collection.countDocuments({ _id: kept })).toBe(1);
});
