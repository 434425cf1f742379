/**
 * Client addresses and secrets in URLs never leave the gateway in clear (DESIGN.md section 3,
 * issue 27). Requests come from loopback, the default trusted proxy, with `X-Forwarded-For`:
 * the per-address limit counts that address, and afterwards no exported span, no log line, no
 * MongoDB document and no Redis key holds it. A magic link's token and the portal session id
 * appear in no span and no log, while the redacted URL does (so the checks are not vacuous).
 */
import { randomInt, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Redis from 'ioredis';
import { connectMongo } from '@aff/mongo';
import { api, basicAuth, request } from './support/http';
import { createMerchant, type TestMerchant } from './support/merchant';
import { tracedSystemPerFile } from './support/traced-system';
import { eventually } from './support/processor';

const CLIENT_ADDRESS_ATTRIBUTES = [
  'client.address',
  'http.client_ip',
  'net.peer.ip',
  'net.sock.peer.addr',
  'network.peer.address',
];

let merchant: TestMerchant;
let affiliateId: string;
let token: string;
/** A documentation address (RFC 5737) per run: any hit anywhere is this test's. */
const address = `198.51.100.${randomInt(1, 254)}`;
const other = `203.0.113.${randomInt(1, 254)}`;

const traced = tracedSystemPerFile({
  // The gateway's access log (debug) writes every URL: redacted.
  LOG_LEVEL: 'debug',
  TRACKING_RATE_LIMIT_POINTS: '5',
});

beforeAll(async () => {
  merchant = await createMerchant({ rateLimit: 1000, natsUrl: traced.isolated.infra.natsUrl });
  token = `pd-${randomUUID().slice(0, 8)}`;
  const created = await api(merchant.api_secret, traced.isolated.system.gatewayUrl).post(
    '/v1/affiliates',
    { first_name: 'Pia', last_name: 'Data', email: `pia-${token}@example.com`, token },
  );
  expect(created.status).toBe(200);
  affiliateId = created.body.id;
}, 120_000);

const from = (ip: string) => ({
  baseUrl: traced.isolated.system.gatewayUrl,
  headers: { 'x-forwarded-for': ip },
});

it('limits public tracking per client address behind a trusted proxy', async () => {
  const visit = (ip: string) =>
    request('POST', '/t/v1/visits', { ...from(ip), json: { key: merchant.public_key, token } });
  const first = await visit(address);
  expect(first.status).toBe(200);
  for (let i = 0; i < 4; i++) expect((await visit(address)).status).toBe(200);
  expect((await visit(address)).status).toBe(429);
  // Another address behind the same proxy has its own allowance.
  expect((await visit(other)).status).toBe(200);
  // A lead and a failed login from the address: both go through its hash too.
  expect(
    (
      await request('POST', '/t/v1/leads', {
        ...from(other),
        json: {
          key: merchant.public_key,
          referral: first.body.referral.id,
          email: 'l@example.com',
        },
      })
    ).status,
  ).toBe(200);
  const failed = await request('GET', '/v1/affiliates', {
    ...from(address),
    headers: { ...from(address).headers, authorization: basicAuth(`sk_${randomUUID()}`) },
  });
  expect(failed.status).toBe(401);
});

it('keeps no raw client address in spans, logs, MongoDB or Redis', async () => {
  // The gateway's server spans of the requests above have arrived (with their HTTP attributes).
  await eventually(async () =>
    traced.receiver.spans.some(
      (s) => s.service === 'gateway' && s.kind === 2 && JSON.stringify(s).includes('/t/v1/leads'),
    )
      ? true
      : undefined,
  );
  for (const span of traced.receiver.spans) {
    for (const key of CLIENT_ADDRESS_ATTRIBUTES) expect(span.attributes).not.toHaveProperty(key);
    const text = JSON.stringify(span.attributes);
    expect(text).not.toContain(address);
    expect(text).not.toContain(other);
  }

  const logs = logFiles(process.env.AFF_TEST_LOG_DIR!);
  expect(logs.length).toBeGreaterThan(0);
  for (const file of logs) {
    const text = fs.readFileSync(file, 'utf8');
    if (text.includes(address) || text.includes(other)) throw new Error(`${file} holds it`);
  }

  const mongo = await connectMongo(traced.isolated.infra.mongoUrl, 'admin');
  try {
    const client = mongo.getClient();
    const { databases } = await client.db('admin').admin().listDatabases();
    let documents = 0;
    for (const { name } of databases) {
      if (['admin', 'local', 'config'].includes(name)) continue;
      for (const collection of await client.db(name).collections()) {
        for (const doc of await collection.find({}).limit(20_000).toArray()) {
          documents++;
          const text = JSON.stringify(doc);
          if (text.includes(address) || text.includes(other))
            throw new Error(`${name}.${collection.collectionName} holds a raw address: ${text}`);
        }
      }
    }
    expect(documents).toBeGreaterThan(0);
  } finally {
    await mongo.close();
  }

  const redis = new Redis(traced.isolated.infra.redisUrl);
  try {
    const keys = await redis.keys('*');
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.filter((k) => k.includes(address) || k.includes(other))).toEqual([]);
  } finally {
    redis.disconnect();
  }
});

it('redacts magic-link tokens and session ids from exported spans and logs', async () => {
  const sso = await api(merchant.api_secret, traced.isolated.system.gatewayUrl).get(
    `/v1/affiliates/${affiliateId}/sso`,
  );
  expect(sso.status).toBe(200);
  const link = new URL(sso.body.sso.url as string);
  const secret = link.searchParams.get('token')!;
  expect(secret.length).toBeGreaterThan(10);
  const signedIn = await fetch(
    `${traced.isolated.system.gatewayUrl}${link.pathname}${link.search}`,
    {
      redirect: 'manual',
    },
  );
  expect(signedIn.status).toBe(303);
  const cookie = signedIn.headers.getSetCookie()[0]!.split(';')[0]!;
  const sessionId = cookie.slice(cookie.indexOf('=') + 1);
  const dashboard = await fetch(`${traced.isolated.system.gatewayUrl}/portal`, {
    headers: { cookie },
  });
  expect(dashboard.status).toBe(200);
  // Tokens that do not work are secrets of the same kind (a guess, or one already used).
  const guess = `guess${randomUUID().replaceAll('-', '')}`;
  for (const p of [`/portal/sso?token=${guess}`, `/portal/confirm-email?token=${guess}&x=1`])
    await fetch(`${traced.isolated.system.gatewayUrl}${p}`, { redirect: 'manual' });

  const redacted = await eventually(async () => {
    const spans = traced.receiver.spans.filter((s) =>
      Object.values(s.attributes).some((v) => v.includes('/portal/confirm-email')),
    );
    return spans.length > 0 ? spans : undefined;
  });
  expect(JSON.stringify(redacted)).toContain('token=[redacted]');
  // The pages are the web service's: its spans are among those read below.
  expect(traced.receiver.spans.some((s) => s.service === 'web')).toBe(true);
  for (const span of traced.receiver.spans) {
    const text = JSON.stringify(span);
    for (const s of [secret, sessionId, guess])
      if (text.includes(s)) throw new Error(`span ${span.name} holds a secret: ${text}`);
  }

  const gatewayLog = await eventually(async () => {
    const file = logFiles(process.env.AFF_TEST_LOG_DIR!)
      .filter((f) => f.endsWith('gateway.log'))
      .map((f) => fs.readFileSync(f, 'utf8'))
      .find((text) => text.includes(`/portal/confirm-email?token=[redacted]&x=1`));
    return file;
  });
  expect(gatewayLog).toContain('/portal/sso?token=[redacted]');
  for (const file of logFiles(process.env.AFF_TEST_LOG_DIR!)) {
    const text = fs.readFileSync(file, 'utf8');
    for (const s of [secret, sessionId, guess])
      if (text.includes(s)) throw new Error(`${file} holds a secret`);
  }
});

function logFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? logFiles(full) : entry.name.endsWith('.log') ? [full] : [];
  });
}
