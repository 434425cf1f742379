/**
 * The address-based fraud signals through tracking's real entry points: the gateway's keyed
 * address hash on visits and leads, the portal's `affiliate.signed_in` events, and the 24-hour
 * count per affiliate and address.
 */
import { randomUUID } from 'node:crypto';
import { STREAMS, buildEvent, type ReferralView } from '@aff/contracts';
import { trackingService } from '../src/service';
import { componentPerFile } from '../../../test/support/component';
import { publishHandled } from '../../../test/support/component-events';
import { merchantWithLink } from './support/tracking-component';

const sut = componentPerFile(trackingService);

/** A public tracking call as the gateway forwards it, with the client's address hash. */
async function call(operation: string, merchantId: string, body: object, hash?: string) {
  const reply = await sut.rpc.call(
    'tracking',
    operation,
    {
      merchant_id: merchantId,
      params: {},
      query: {},
      body: { key: 'pk_component', ...body },
      expand: [],
      api_key_id: null,
      ...(hash ? { client_address_hash: hash } : {}),
    },
    randomUUID(),
  );
  expect(reply.status).toBe(200);
  return reply.body as { referral: { id: string } };
}

async function referral(merchantId: string, id: string): Promise<ReferralView> {
  const reply = await sut.rpc.call(
    'tracking',
    'getReferral',
    { merchant_id: merchantId, params: { id }, query: {}, expand: [], api_key_id: null },
    randomUUID(),
  );
  return reply.body as ReferralView;
}

async function signedIn(merchantId: string, affiliateId: string, hash: string, at: Date) {
  await publishHandled(sut.component.nc, STREAMS.affiliate.name, 'tracking-sign-ins', [
    buildEvent('affiliate.signed_in', merchantId, {
      affiliate_id: affiliateId,
      address_hash: hash,
      signed_in_at: at.toISOString(),
    }),
  ]);
}

const DAY = 24 * 60 * 60 * 1000;

it('self_referral_ip: a visit and a lead from an address the affiliate signed in from are held, naming the day', async () => {
  const m = await merchantWithLink(sut.component.nc);
  const yesterday = new Date(Date.now() - DAY);
  await signedIn(m.merchantId, m.affiliate.id, 'hash-home', yesterday);
  const { referral: visit } = await call(
    'recordVisit',
    m.merchantId,
    { token: m.link.token },
    'hash-home',
  );
  const flagged = await referral(m.merchantId, visit.id);
  expect(flagged.fraud_signals).toEqual([
    {
      type: 'self_referral_ip',
      detected_at: expect.any(String),
      detail: `A visit came from an address the affiliate signed in from on ${yesterday.toISOString().slice(0, 10)}.`,
    },
  ]);
  expect(flagged.review_state).toBe('open');
  expect(JSON.stringify(flagged)).not.toContain('hash-home');

  // A visit from elsewhere whose lead comes from the affiliate's address.
  const { referral: other } = await call(
    'recordVisit',
    m.merchantId,
    { token: m.link.token },
    'hash-cafe',
  );
  expect((await referral(m.merchantId, other.id)).fraud_signals).toEqual([]);
  await call(
    'recordLead',
    m.merchantId,
    { referral: other.id, email: `${randomUUID()}@example.com` },
    'hash-home',
  );
  const lead = await referral(m.merchantId, other.id);
  expect(lead.fraud_signals?.map((s) => s.detail)).toEqual([
    `A lead came from an address the affiliate signed in from on ${yesterday.toISOString().slice(0, 10)}.`,
  ]);
});

it("self_referral_ip: a sign-in older than 30 days, or another affiliate's, does not count", async () => {
  const m = await merchantWithLink(sut.component.nc);
  await signedIn(m.merchantId, m.affiliate.id, 'hash-old', new Date(Date.now() - 31 * DAY));
  await signedIn(m.merchantId, randomUUID(), 'hash-theirs', new Date());
  for (const hash of ['hash-old', 'hash-theirs']) {
    const { referral: r } = await call('recordVisit', m.merchantId, { token: m.link.token }, hash);
    expect((await referral(m.merchantId, r.id)).fraud_signals).toEqual([]);
  }
});

it('ip_velocity: leads past the limit from one address in 24 h are each flagged and held, the first three are not', async () => {
  const m = await merchantWithLink(sut.component.nc);
  const states: (string | null | undefined)[] = [];
  const types: string[][] = [];
  for (let i = 0; i < 5; i++) {
    const { referral: r } = await call(
      'recordVisit',
      m.merchantId,
      { token: m.link.token },
      'hash-burst',
    );
    await call(
      'recordLead',
      m.merchantId,
      { referral: r.id, email: `lead-${i}-${randomUUID()}@example.com` },
      'hash-burst',
    );
    const view = await referral(m.merchantId, r.id);
    states.push(view.review_state);
    types.push((view.fraud_signals ?? []).map((s) => s.type));
  }
  expect(types).toEqual([[], [], [], ['ip_velocity'], ['ip_velocity']]);
  expect(states).toEqual([null, null, null, 'open', 'open']);
  // Another address of the same affiliate has its own count.
  const { referral: r } = await call(
    'recordVisit',
    m.merchantId,
    { token: m.link.token },
    'hash-other',
  );
  await call(
    'recordLead',
    m.merchantId,
    { referral: r.id, email: `${randomUUID()}@example.com` },
    'hash-other',
  );
  expect((await referral(m.merchantId, r.id)).fraud_signals).toEqual([]);
});
