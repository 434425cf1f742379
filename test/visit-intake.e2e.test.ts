/**
 * Durable-first visit intake through the real gateway. With tracking's intake consumer paused, a
 * visit is answered but its referral is only queued; a lead, a repeat visit, a read and a
 * processor customer naming it must still work. Once the consumer runs, every referral is
 * written once, listed, and counted once by the affiliate's counters.
 */
import { randomUUID } from 'node:crypto';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { VISIT_INTAKE } from '@aff/contracts';
import type { NatsConnection } from '@aff/messaging';
import { api, request } from './support/http';
import { createAffiliate, visitOf } from './support/journey';
import { createMerchant, type TestMerchant } from './support/merchant';
import { eventually, sendProcessorEvent } from './support/processor';
import { startIsolatedSystem, type IsolatedSystem } from './support/isolated-system';

describe('visits answered before their referrals are written', () => {
  let isolated: IsolatedSystem;
  let merchant: TestMerchant;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  const sharedGateway = process.env.GATEWAY_URL;

  beforeAll(async () => {
    // A system of its own: pausing its intake must not hold up the other tests' visits.
    isolated = await startIsolatedSystem({ env: { LOG_LEVEL: 'warn' } });
    process.env.GATEWAY_URL = isolated.system.gatewayUrl;
    merchant = await createMerchant({ rateLimit: 5000 });
    nc = await connect({ servers: isolated.infra.natsUrl });
    jsm = await jetstreamManager(nc);
  }, 180_000);

  afterAll(async () => {
    process.env.GATEWAY_URL = sharedGateway;
    await nc?.close();
    await isolated?.stop();
  });

  const queued = async () => (await jsm.streams.info(VISIT_INTAKE.stream)).state.messages;

  it('finds queued referrals for leads, repeat visits, reads and customers, then writes and counts each once', async () => {
    const client = api(merchant.api_secret);
    const affiliate = await createAffiliate(merchant);
    const link = affiliate.links[0];
    await jsm.consumers.pause(
      VISIT_INTAKE.stream,
      VISIT_INTAKE.durable,
      new Date(Date.now() + 120_000),
    );
    const forLead = await visitOf(merchant, link.token);
    const forRepeat = await visitOf(merchant, link.token);
    const forRead = await visitOf(merchant, link.token);
    const forCustomer = await visitOf(merchant, link.token);
    // Answered, and still only in the queue.
    expect(await queued()).toBe(4);

    const lead = await request('POST', '/t/v1/leads', {
      json: { key: merchant.public_key, referral: forLead, email: 'lead@example.com' },
    });
    expect(lead.status).toBe(200);
    expect(lead.body.referral.id).toBe(forLead);
    expect((await client.get(`/v1/referrals/${forLead}`)).body.conversion_state).toBe('lead');

    const repeat = await request('POST', '/t/v1/visits', {
      json: { key: merchant.public_key, token: link.token, referral: forRepeat },
    });
    expect(repeat.status).toBe(200);
    expect(repeat.body.referral.id).toBe(forRepeat);

    const read = await client.get(`/v1/referrals/${forRead}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: forRead, visits: 1, conversion_state: 'visitor' });

    const customer = await sendProcessorEvent(merchant, 'customer.created', {
      id: `cus_${randomUUID()}`,
      email: 'customer@example.com',
      metadata: { referral: forCustomer },
    });
    expect(customer.status).toBe(200);
    await eventually(async () => {
      const res = await client.get(`/v1/referrals/${forCustomer}`);
      return res.body.conversion_state === 'lead' ? true : undefined;
    });

    await jsm.consumers.resume(VISIT_INTAKE.stream, VISIT_INTAKE.durable);
    await eventually(async () => ((await queued()) === 0 ? true : undefined));

    const list = await client.get(`/v1/referrals?affiliate_id=${affiliate.id}`);
    expect(list.status).toBe(200);
    expect(list.body.pagination.total_count).toBe(4);
    expect((await client.get(`/v1/referrals/${forRepeat}`)).body.visits).toBe(2);

    // Readers and the consumer both published each referral.created; it counts once.
    const counted = () =>
      eventually(async () => {
        const res = await client.get(`/v1/affiliate_links/${link.id}`);
        return res.body.visitors === 4 && res.body.leads === 2 ? res.body : undefined;
      });
    await counted();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await client.get(`/v1/affiliate_links/${link.id}`)).body).toMatchObject({
      visitors: 4,
      leads: 2,
    });
    expect((await client.get(`/v1/affiliates/${affiliate.id}`)).body).toMatchObject({
      visitors: 4,
      leads: 2,
    });
  }, 120_000);
});
