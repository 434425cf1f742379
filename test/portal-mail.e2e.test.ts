/**
 * Mails through a real SMTP server on loopback (test/support/smtp-sink.ts): e-mail confirmation
 * links and new-commission notifications, sent from events, retried, never twice per event.
 */
import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { api } from './support/http';
import { findEvents } from './support/events';
import { createAffiliate } from './support/journey';
import { createMerchant, type TestMerchant } from './support/merchant';
import { csrfOf, mailedConfirmation, portalRequest, signIn } from './support/portal';
import { campaignPayingAtOnce, paidJourney } from './support/portal-journey';
import { eventually } from './support/processor';
import { mailsTo, refusedDeliveries } from './support/smtp-sink';

let merchant: TestMerchant;
let affiliateDb: mongoose.Connection;
beforeAll(async () => {
  merchant = await createMerchant({ rateLimit: 100_000 });
  affiliateDb = await mongoose
    .createConnection(process.env.MONGO_URL!, { dbName: 'affiliate' })
    .asPromise();
});
afterAll(async () => {
  await affiliateDb?.close();
});

const address = (tag = '') => `aff-${randomUUID()}${tag}@example.com`;
const waitForMail = (to: string, subject: RegExp, count = 1) =>
  eventually(async () => {
    const mails = mailsTo(to).filter((m) => subject.test(m.subject));
    return mails.length >= count ? mails : undefined;
  }, 20_000);
const { linkIn, confirmByLink } = mailedConfirmation('confirm-email');
const sentMail = (key: string) =>
  affiliateDb.collection('sent_mails').findOne({ _id: key as never });

describe('e-mail confirmation', () => {
  it('mails a link to the new address that confirms it once, and emits affiliate.confirmed', async () => {
    const oldEmail = address();
    const newEmail = address();
    const affiliate = await createAffiliate(merchant, { email: oldEmail });
    const changed = await api(merchant.api_secret).put(`/v1/affiliates/${affiliate.id}`, {
      email: newEmail,
    });
    expect(changed.body).toMatchObject({ email: oldEmail, unconfirmed_email: newEmail });

    const [mail] = await waitForMail(newEmail, /Confirm your e-mail address/);
    expect(mail!.text).toContain('Hello Aff,');
    const link = linkIn(mail!);
    const confirmed = await confirmByLink(link);
    expect(confirmed.status).toBe(200);
    expect(confirmed.text).toContain(`Your account e-mail is now ${newEmail}`);
    const after = (await api(merchant.api_secret).get(`/v1/affiliates/${affiliate.id}`)).body;
    expect(after).toMatchObject({ email: newEmail, unconfirmed_email: null });
    expect(Date.parse(after.confirmed_at)).toBeGreaterThan(Date.parse(affiliate.confirmed_at!));
    const events = await findEvents(
      'EVT_AFFILIATE',
      'evt.affiliate.confirmed',
      (e) => e.data.id === affiliate.id,
    );
    expect(events).toHaveLength(1);
    expect(events[0]!.event.data).toMatchObject({ email: newEmail, unconfirmed_email: null });

    const again = await confirmByLink(link);
    expect(again.status).toBe(404);
    expect(again.text).toContain('change your e-mail again');
    // Creating the affiliate through the API sent nothing (spec), and the old address got nothing.
    expect(mailsTo(oldEmail)).toEqual([]);
  });

  it('a newer change replaces the older link', async () => {
    const affiliate = await createAffiliate(merchant);
    const first = address();
    const second = address();
    await api(merchant.api_secret).put(`/v1/affiliates/${affiliate.id}`, { email: first });
    const [firstMail] = await waitForMail(first, /Confirm/);
    await api(merchant.api_secret).put(`/v1/affiliates/${affiliate.id}`, { email: second });
    const [secondMail] = await waitForMail(second, /Confirm/);
    expect((await confirmByLink(linkIn(firstMail!))).status).toBe(404);
    expect((await confirmByLink(linkIn(secondMail!))).status).toBe(200);
    expect((await api(merchant.api_secret).get(`/v1/affiliates/${affiliate.id}`)).body.email).toBe(
      second,
    );
  });

  it('is mailed when the affiliate changes the address in the portal', async () => {
    const affiliate = await createAffiliate(merchant);
    const newEmail = address();
    const { cookie } = await signIn(merchant, affiliate.id);
    const csrf = csrfOf((await portalRequest('/portal', { cookie })).text);
    const saved = await portalRequest('/portal/settings', {
      cookie,
      form: { _csrf: csrf, email: newEmail, receive_new_commission_notifications: 'true' },
    });
    expect(saved.location).toBe('/portal?notice=confirm');
    const pending = await portalRequest('/portal?notice=confirm', { cookie });
    expect(pending.text).toContain(`Waiting for confirmation of <strong>${newEmail}</strong>`);
    const [mail] = await waitForMail(newEmail, /Confirm your e-mail address/);
    expect((await confirmByLink(linkIn(mail!))).status).toBe(200);
    expect((await api(merchant.api_secret).get(`/v1/affiliates/${affiliate.id}`)).body.email).toBe(
      newEmail,
    );
  });

  it('is refused for unknown tokens with a clear page', async () => {
    const res = await confirmByLink('/portal/confirm-email?token=unknown');
    expect(res.status).toBe(404);
    expect(res.text).toContain('This confirmation link does not work');
  });
});

describe('new-commission notifications', () => {
  it('mail affiliates who want them once per commission, retrying after an SMTP refusal', async () => {
    const campaignId = await campaignPayingAtOnce(merchant);
    const flaky = address('+flaky');
    const quiet = address();
    const [wants, declines] = await Promise.all([
      paidJourney(merchant, campaignId, { email: flaky }),
      paidJourney(merchant, campaignId, {
        email: quiet,
        receive_new_commission_notifications: 'false',
      }),
    ]);

    const [mail] = await waitForMail(flaky, /You earned a commission of \$20\.00/);
    expect(mail!.text).toContain('you earned a commission of $20.00 (USD)');
    // The sink refused the first attempt; the event was retried and delivered once.
    expect(refusedDeliveries().filter((r) => r.to.includes(flaky))).toHaveLength(1);

    const [created] = await findEvents(
      'EVT_COMMISSION',
      'evt.commission.created',
      (e) => e.data.id === wants.commissionId,
    );
    const key = `commission-created-${created!.event.id}`;
    expect(mail!.messageId).toBe(`<${key}@127.0.0.1>`);
    expect(await sentMail(key)).toMatchObject({ state: 'sent', to: flaky });

    // The same event delivered again (as after a crash before the ack) sends nothing new.
    const nc = await connect({ servers: process.env.NATS_URL });
    try {
      const ack = await jetstream(nc).publish(
        'evt.commission.created',
        JSON.stringify(created!.event),
        {
          msgID: `replay-${created!.event.id}`,
        },
      );
      const jsm = await jetstreamManager(nc);
      await eventually(async () => {
        const info = await jsm.consumers.info('EVT_COMMISSION', 'affiliate-mail-commissions');
        return info.ack_floor.stream_seq >= ack.seq ? true : undefined;
      }, 20_000);
    } finally {
      await nc.close();
    }
    expect(mailsTo(flaky).filter((m) => /commission/.test(m.subject))).toHaveLength(1);

    // Notifications off: the event is handled (recorded as skipped) and nothing is mailed.
    const [quietEvent] = await findEvents(
      'EVT_COMMISSION',
      'evt.commission.created',
      (e) => e.data.id === declines.commissionId,
    );
    await eventually(async () => {
      const record = await sentMail(`commission-created-${quietEvent!.event.id}`);
      return record?.state === 'skipped' ? true : undefined;
    });
    expect(mailsTo(quiet)).toEqual([]);
  }, 120_000);
});
