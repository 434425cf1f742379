/**
 * Over the real MongoDB-protocol server: the once-per-event mail record (failure, retry,
 * duplicate, one write per mail, an earlier version's claim cut off mid-send), and the expiry of
 * magic links and confirmation links.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Connection, Model } from 'mongoose';
import { AppError } from '@aff/api';
import { createLogger } from '@aff/logging';
import { buildEvent } from '@aff/contracts';
import type { PendingEvent } from '@aff/messaging';
import { TenantRepository, connectMongo } from '@aff/mongo';
import { AffiliateRepository } from '../src/data/affiliate.repository';
import { affiliateModel, type AffiliateRecord } from '../src/data/affiliate.schema';
import { CampaignRepository } from '../src/data/campaign.repository';
import { campaignModel } from '../src/data/campaign.schema';
import { LinkRepository } from '../src/data/link.repository';
import { OneTimeTokenRepository } from '../src/data/one-time-token.repository';
import { linkModel } from '../src/data/link.schema';
import { sentMailModel, type SentMailRecord } from '../src/data/sent-mail.schema';
import { emailConfirmationModel, ssoTokenModel } from '../src/data/one-time-token.schema';
import { AffiliatePresenter } from '../src/domain/affiliate-presenter';
import { EmailConfirmations } from '../src/domain/email-confirmations';
import { MagicLinks } from '../src/domain/magic-links';
import { DuplicateError } from '../src/domain/ports';
import {
  createMailTransport,
  type MailTransport,
  type OutgoingMail,
} from '../src/mail/mail-transport';
import { OnceMailer } from '../src/mail/once-mailer';
import { affiliateRecord } from './support/affiliate-record';

const log = createLogger('test', 'silent');
let mongo: Connection;
let sent: Model<SentMailRecord>;
let affiliates: AffiliateRepository;
/** What the repositories handed to the relay. */
const relayed: PendingEvent[] = [];
const relay = { relay: (pending: PendingEvent[]) => void relayed.push(...pending) };
let clock: Date;
const now = () => clock;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `affiliate_mail_test_${Date.now()}`);
  sent = sentMailModel(mongo);
  const affiliateRecords = affiliateModel(mongo);
  await Promise.all([sent.init(), affiliateRecords.init()]);
  affiliates = new AffiliateRepository(new TenantRepository(affiliateRecords, { relay }));
});
beforeEach(() => {
  clock = new Date('2026-06-01T12:00:00Z');
});
afterAll(async () => {
  await mongo.dropDatabase();
  await mongo.close();
});

/** Records what it was asked to send; fails while `failures` > 0, like a refusing server. */
class RecordingTransport implements MailTransport {
  readonly description = 'test';
  readonly mails: OutgoingMail[] = [];
  failures = 0;
  async send(mail: OutgoingMail) {
    if (this.failures > 0) {
      this.failures--;
      throw new Error('451 try again later');
    }
    this.mails.push(mail);
  }
}

const message = { to: 'a@example.com', subject: 'Hi', text: 'Hello' };

describe('OnceMailer', () => {
  it('records nothing when sending fails, sends on retry, and never twice', async () => {
    const transport = new RecordingTransport();
    transport.failures = 1;
    const mailer = new OnceMailer(sent, transport, 'example.test', now);
    const key = `k-${randomUUID()}`;
    const failed = mailer.sendOnce(key, async () => message, log);
    await expect(failed).rejects.toMatchObject({ code: 'unavailable', retryable: true });
    expect(await sent.findById(key).lean()).toBeNull();

    expect(await mailer.sendOnce(key, async () => message, log)).toBe('sent');
    expect(await mailer.sendOnce(key, async () => message, log)).toBe('duplicate');
    expect(transport.mails).toEqual([{ ...message, messageId: `<${key}@example.test>` }]);
    expect(await sent.findById(key).lean()).toMatchObject({ state: 'sent', to: 'a@example.com' });
  });

  it('sends mails asked for at once each once, one of two racing attempts at one key', async () => {
    const transport = new RecordingTransport();
    const mailer = new OnceMailer(sent, transport, 'example.test', now);
    const keys = Array.from({ length: 8 }, () => `k-${randomUUID()}`);
    // Checked and recorded together (one read, one insert), each answered on its own.
    const outcomes = await Promise.allSettled(
      [...keys, keys[0]!].map((key) => mailer.sendOnce(key, async () => message, log)),
    );
    expect(outcomes.slice(0, 8).map((outcome) => outcome.status)).toEqual(
      Array(8).fill('fulfilled'),
    );
    // The second attempt at the first key found it in flight here: retried later.
    expect(outcomes[8]).toMatchObject({ status: 'rejected', reason: { code: 'unavailable' } });
    expect(transport.mails.map((mail) => mail.messageId).sort()).toEqual(
      keys.map((key) => `<${key}@example.test>`).sort(),
    );
    const records = await sent.find({ _id: { $in: keys } }).lean();
    expect(records.map((record) => record.state)).toEqual(Array(8).fill('sent'));
  });

  it('records a mail with nothing to say as skipped, without sending', async () => {
    const transport = new RecordingTransport();
    const mailer = new OnceMailer(sent, transport, 'example.test', now);
    const key = `k-${randomUUID()}`;
    expect(await mailer.sendOnce(key, async () => null, log)).toBe('skipped');
    expect(await mailer.sendOnce(key, async () => message, log)).toBe('duplicate');
    expect(transport.mails).toEqual([]);
  });

  it('writes one document per mail, after the send: nothing is stored while sending', async () => {
    const key = `k-${randomUUID()}`;
    const seenWhileSending: unknown[] = [];
    const transport = new RecordingTransport();
    const send = transport.send.bind(transport);
    transport.send = async (mail) => {
      seenWhileSending.push(await sent.findById(key).lean());
      await send(mail);
    };
    const mailer = new OnceMailer(sent, transport, 'example.test', now);
    const writesBefore = await sent.countDocuments();
    expect(await mailer.sendOnce(key, async () => message, log)).toBe('sent');
    expect(seenWhileSending).toEqual([null]);
    expect(await sent.countDocuments()).toBe(writesBefore + 1);
    expect(await sent.findById(key).lean()).toMatchObject({ state: 'sent', to: 'a@example.com' });
    // A record lost to a crash between the send and the write: the redelivery mails again
    // (at least once; the duplicate is the price of that crash only).
    await sent.deleteOne({ _id: key });
    expect(await mailer.sendOnce(key, async () => message, log)).toBe('sent');
    expect(transport.mails).toHaveLength(2);
  });

  it("retries later while an earlier version's claim may still be sending, and gives up on a stale one", async () => {
    const transport = new RecordingTransport();
    const mailer = new OnceMailer(sent, transport, 'example.test', now);
    const key = `k-${randomUUID()}`;
    await sent.collection.insertOne({
      _id: key as never,
      state: 'sending',
      claim: 'other',
      claimed_at: clock,
      sent_at: null,
      to: null,
      subject: null,
      message_id: null,
    });
    const compose = jest.fn(async () => message);
    await expect(mailer.sendOnce(key, compose, log)).rejects.toBeInstanceOf(AppError);
    clock = new Date(clock.getTime() + 10 * 60_000);
    // The other process died mid-send: the mail may be out, so it is not sent again.
    expect(await mailer.sendOnce(key, compose, log)).toBe('duplicate');
    expect(compose).not.toHaveBeenCalled();
    expect(transport.mails).toEqual([]);
  });
});

async function anAffiliate(fields: Partial<AffiliateRecord> = {}): Promise<AffiliateRecord> {
  const record = affiliateRecord('m1', clock, fields);
  await affiliates.insertWithEvents(record, [], {});
  return record;
}

/** E-mail confirmations over `tokens`, whose links live an hour on the test's clock. */
function confirmationsOver(tokens: ReturnType<typeof emailConfirmationModel>) {
  const presenter = new AffiliatePresenter(
    new CampaignRepository(new TenantRepository(campaignModel(mongo), { relay })),
    new LinkRepository(new TenantRepository(linkModel(mongo), { relay })),
  );
  return new EmailConfirmations(
    new OneTimeTokenRepository(tokens),
    affiliates,
    presenter,
    3_600_000,
    now,
  );
}

describe('affiliate repository', () => {
  it('relays the events of its own writes, and reports a taken unique key as DuplicateError', async () => {
    const affiliate = await anAffiliate();
    const event = buildEvent('affiliate.email_change_requested', 'm1', {
      affiliate_id: affiliate._id,
      email: 'x@example.com',
    });
    relayed.length = 0;
    const updated = await affiliates.updateWithEvents(
      'm1',
      affiliate._id,
      { first_name: 'Renamed' },
      [event],
      {},
    );
    expect(updated).toMatchObject({ first_name: 'Renamed' });
    expect(relayed.map((item) => item.event.id)).toEqual([event.id]);
    // Conditional: a record that no longer matches is not written.
    expect(
      await affiliates.updateWithEvents(
        'm1',
        affiliate._id,
        { last_name: 'X' },
        [],
        {},
        {
          first_name: 'Someone else',
        },
      ),
    ).toBeNull();

    const twin = { ...affiliate, _id: randomUUID(), customer_key: `none:${randomUUID()}` };
    await expect(affiliates.insertWithEvents(twin, [], {})).rejects.toBeInstanceOf(DuplicateError);
  });
});

describe('link expiry', () => {
  it('refuses a magic link after its minute', async () => {
    const tokens = ssoTokenModel(mongo);
    await tokens.init();
    const links = new MagicLinks(
      new OneTimeTokenRepository(tokens),
      affiliates,
      'http://portal.test',
      now,
    );
    const affiliate = await anAffiliate();
    const issued = await links.issue('m1', affiliate._id);
    const token = new URL(issued.sso.url).searchParams.get('token')!;
    clock = new Date(clock.getTime() + 61_000);
    await expect(links.redeem(token)).rejects.toMatchObject({ status: 401 });
  });

  it('refuses an e-mail confirmation link after its lifetime, and confirms within it', async () => {
    const tokens = emailConfirmationModel(mongo);
    await tokens.init();
    const confirmations = confirmationsOver(tokens);
    const affiliate = await anAffiliate({ unconfirmed_email: `new-${randomUUID()}@example.com` });
    const stale = await confirmations.issue('m1', affiliate._id, affiliate.unconfirmed_email!);
    clock = new Date(clock.getTime() + 3_600_001);
    await expect(confirmations.confirm(stale!.token, { events: {} })).rejects.toMatchObject({
      status: 404,
    });

    const fresh = await confirmations.issue('m1', affiliate._id, affiliate.unconfirmed_email!);
    const view = await confirmations.confirm(fresh!.token, { events: {} });
    expect(view).toMatchObject({ email: affiliate.unconfirmed_email, unconfirmed_email: null });
    expect(await confirmations.issue('m1', affiliate._id, affiliate.unconfirmed_email!)).toBeNull();
  });

  it('refuses to confirm an address another affiliate of the merchant took meanwhile (422), changing nothing', async () => {
    const tokens = emailConfirmationModel(mongo);
    const confirmations = confirmationsOver(tokens);
    const wanted = `wanted-${randomUUID()}@example.com`;
    const affiliate = await anAffiliate({ unconfirmed_email: wanted });
    const issued = await confirmations.issue('m1', affiliate._id, wanted);
    await anAffiliate({ email: wanted });
    await expect(confirmations.confirm(issued!.token, { events: {} })).rejects.toMatchObject({
      status: 422,
      details: ['Email has already been taken'],
    });
    expect(await affiliates.findById('m1', affiliate._id)).toMatchObject({
      email: affiliate.email,
      unconfirmed_email: wanted,
    });
  });
});

it('writes mails to the outbox directory when no SMTP server is configured', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aff-outbox-'));
  const transport = createMailTransport({
    MAIL_FROM: 'Program <p@example.com>',
    MAIL_OUTBOX_DIR: dir,
  });
  expect(transport.description).toBe(`outbox directory ${dir}`);
  await transport.send({ ...message, messageId: '<k1@example.test>' });
  const files = fs.readdirSync(dir).sort();
  expect(files).toHaveLength(2);
  expect(files[0]).toMatch(/\.eml$/);
  const eml = fs.readFileSync(path.join(dir, files[0]!), 'utf8');
  expect(fs.readFileSync(path.join(dir, files[1]!), 'utf8')).toBe(
    'To: a@example.com\nSubject: Hi\n\nHello\n',
  );
  expect(eml).toMatch(/^Subject: Hi$/m);
  expect(eml).toMatch(/^To: a@example.com$/m);
  expect(eml).toMatch(/^Message-ID: <k1@example.test>$/m);

  // The directory is made once; removed while the service runs, the next mail makes it again.
  fs.rmSync(dir, { recursive: true, force: true });
  await transport.send({ ...message, messageId: '<k2@example.test>' });
  expect(fs.readdirSync(dir)).toHaveLength(2);
  fs.rmSync(dir, { recursive: true, force: true });
});
