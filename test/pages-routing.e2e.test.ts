/**
 * The gateway hands `/portal` and `/console` to the web service over NATS, behind a limit per
 * client address: over it a JSON 429 with Retry-After (another address is unaffected), the
 * console is answered by the web service (a signed-out visitor goes to its sign-in page), and with
 * the web service gone the pages answer 503 rather than hang or fall back to anything else.
 */
import { randomInt } from 'node:crypto';
import { startIsolatedSystem, type IsolatedSystem } from './support/isolated-system';

let isolated: IsolatedSystem;
beforeAll(async () => {
  isolated = await startIsolatedSystem({ env: { TRACKING_RATE_LIMIT_POINTS: '3' } });
}, 120_000);
afterAll(async () => {
  await isolated?.stop();
});

/** Documentation addresses (RFC 5737), behind the loopback proxy the gateway trusts. */
const address = `198.51.100.${randomInt(1, 254)}`;
const other = `203.0.113.${randomInt(1, 254)}`;
const page = (path: string, ip: string) =>
  fetch(`${isolated.system.gatewayUrl}${path}`, {
    headers: { 'x-forwarded-for': ip },
    redirect: 'manual',
  });

it('limits page requests per client address, apart from other addresses', async () => {
  for (let i = 0; i < 3; i++) {
    const res = await page('/portal/signed-out', address);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  }
  const limited = await page('/portal/signed-out', address);
  expect(limited.status).toBe(429);
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(await limited.json()).toEqual({ error: expect.stringMatching(/^Rate limit exceeded/) });
  expect((await page('/portal/signed-out', other)).status).toBe(200);
});

it('routes /console to the web service, which sends a signed-out visitor to its sign-in page', async () => {
  const ip = `192.0.2.${randomInt(1, 254)}`;
  const res = await page('/console/anything?x=1', ip);
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toBe('/console/sign-in');
  // Another address: this one's budget (3) is spent on the requests below.
  const signIn = await page('/console/sign-in', `198.18.0.${randomInt(1, 254)}`);
  expect(signIn.status).toBe(200);
  expect(await signIn.text()).toContain('<html lang="en">');
  // Answered by the web service: without it the console is unavailable, not a gateway 404.
  await isolated.system.stopProcess('web');
  try {
    const down = await page('/console', ip);
    expect(down.status).toBe(503);
    const portal = await page('/portal/signed-out', ip);
    expect(portal.status).toBe(503);
    expect(await portal.json()).toEqual({ error: expect.any(String) });
  } finally {
    await isolated.system.startProcess('web');
  }
  const back = `192.0.2.${(Number(ip.split('.')[3]) % 253) + 1}`;
  expect((await page('/portal/signed-out', back)).status).toBe(200);
});
