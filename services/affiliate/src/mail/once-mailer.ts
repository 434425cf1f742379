/**
 * Sends one mail per key (an event id) in normal operation, with one write: the mail is sent
 * first and then recorded (`sent_mails`, `_id` = the key); a key already recorded is not sent
 * again. A failed send records nothing and is retried (nak). A process that dies between the
 * send and the record leaves no record, so the redelivered event sends the mail again: at least
 * once, a duplicate only after such a crash (docs/decisions.md, "One write per commission
 * mail"). Attempts at one key in one process wait for each other; across processes one event is
 * in flight at a time (JetStream offers it again only after its ack wait, longer than any send).
 * The checks and the records of mails sent at the same time share one read and one write.
 */
import type { Model } from 'mongoose';
import { AppError } from '@aff/api';
import type { Logger } from '@aff/logging';
import { Batcher } from '@aff/messaging';
import { BatchedLookup, insertManyUnordered, isDuplicateKeyError } from '@aff/mongo';
import type { SentMailRecord } from '../data/sent-mail.schema';
import type { MailMessage, MailTransport } from './mail-transport';

export type SendOutcome = 'sent' | 'skipped' | 'duplicate';

/**
 * A `sending` claim (written by earlier versions, which claimed before sending) younger than
 * this may still be sending: try again later rather than give up.
 */
const IN_FLIGHT_MS = 2 * 60_000;
/** Tries of the record after a sent mail before the event is retried (and the mail resent). */
const RECORD_TRIES = [0, 200, 1_000];

export class OnceMailer {
  private readonly records: Batcher<SentMailRecord>;
  private readonly seen: BatchedLookup<SentMailRecord>;
  /** Keys being handled in this process. */
  private readonly inFlight = new Set<string>();

  constructor(
    log: Model<SentMailRecord>,
    private readonly transport: MailTransport,
    private readonly domain: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    // A duplicate key fails only its own record (see insertManyUnordered).
    this.records = new Batcher<SentMailRecord>({
      flush: (docs) => insertManyUnordered(log, docs),
    });
    this.seen = new BatchedLookup(async (ids) => {
      const found = await log
        .find({ _id: { $in: ids } })
        .lean<SentMailRecord[]>()
        .exec();
      return new Map(found.map((doc) => [doc._id, doc]));
    });
  }

  /** `compose` runs only when the key is not recorded; it returns null when there is nothing to send. */
  async sendOnce(
    key: string,
    compose: () => Promise<MailMessage | null>,
    logger: Logger,
  ): Promise<SendOutcome> {
    if (this.inFlight.has(key))
      throw new AppError('unavailable', 'Mail for this event is being sent; retrying later.');
    this.inFlight.add(key);
    try {
      const existing = await this.seen.get(key);
      if (existing) return this.recorded(existing);
      let message: MailMessage | null;
      try {
        message = await compose();
        if (message)
          await this.transport.send({ ...message, messageId: `<${key}@${this.domain}>` });
      } catch (error) {
        if (error instanceof AppError) throw error;
        throw new AppError('unavailable', `Mail not sent: ${(error as Error).message}`);
      }
      await this.record(key, message);
      if (message) logger.info({ mail: key }, 'mail sent');
      return message ? 'sent' : 'skipped';
    } finally {
      this.inFlight.delete(key);
    }
  }

  /** A record already there: sent or skipped; or an earlier version's claim. */
  private recorded(existing: SentMailRecord): SendOutcome {
    if (existing.state !== 'sending') return 'duplicate';
    if (this.now().getTime() - new Date(existing.claimed_at).getTime() < IN_FLIGHT_MS)
      throw new AppError('unavailable', 'Mail for this event is being sent; retrying later.');
    // Cut off mid-send long ago: the mail may be out, and one event never sends two.
    return 'duplicate';
  }

  /** The record of what was done; a few tries, since a record lost means a mail sent again. */
  private async record(key: string, message: MailMessage | null): Promise<void> {
    const doc: SentMailRecord = {
      _id: key,
      state: message ? 'sent' : 'skipped',
      claimed_at: this.now(),
      sent_at: message ? this.now() : null,
      to: message?.to ?? null,
      subject: message?.subject ?? null,
      message_id: null,
    };
    for (let i = 0; ; i++) {
      try {
        await this.records.push(doc);
        return;
      } catch (error) {
        // Recorded by a racing attempt elsewhere: recorded all the same.
        if (isDuplicateKeyError(error)) return;
        const wait = RECORD_TRIES[i + 1];
        if (wait === undefined)
          throw new AppError(
            'unavailable',
            `Mail sent but not recorded: ${(error as Error).message}`,
          );
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }
}
