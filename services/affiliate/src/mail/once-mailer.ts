/**
 * Sends at most one mail per key (an event id): a unique insert claims the key before sending.
 * A failed send releases the claim and is retried (nak); a claim left by a process that died
 * mid-send is never resent, because the mail may already be out. The claims and the results of
 * mails sent at the same time share one write each (an unordered insert, a bulk update).
 */
import { randomUUID } from 'node:crypto';
import type { Model } from 'mongoose';
import { AppError } from '@aff/api';
import type { Logger } from '@aff/logging';
import { Batcher } from '@aff/messaging';
import { BulkUpdates, insertManyUnordered, isDuplicateKeyError } from '@aff/mongo';
import type { SentMailRecord } from '../data/sent-mail.schema';
import type { MailMessage, MailTransport } from './mail-transport';

export type SendOutcome = 'sent' | 'skipped' | 'duplicate';

/** A claim younger than this may still be sending: try again later rather than give up. */
const IN_FLIGHT_MS = 2 * 60_000;

export class OnceMailer {
  private readonly claims: Batcher<SentMailRecord>;
  private readonly results = new BulkUpdates();

  constructor(
    private readonly log: Model<SentMailRecord>,
    private readonly transport: MailTransport,
    private readonly domain: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    // A duplicate key fails only its own claim (see insertManyUnordered).
    this.claims = new Batcher<SentMailRecord>({ flush: (docs) => insertManyUnordered(log, docs) });
  }

  /** `compose` runs only under the claim; it returns null when there is nothing to send. */
  async sendOnce(
    key: string,
    compose: () => Promise<MailMessage | null>,
    logger: Logger,
  ): Promise<SendOutcome> {
    const claim = randomUUID();
    const claimed = await this.claim(key, claim);
    if (claimed !== 'claimed') return claimed;
    let message: MailMessage | null;
    try {
      message = await compose();
      if (message) await this.transport.send({ ...message, messageId: `<${key}@${this.domain}>` });
    } catch (error) {
      await this.log.deleteOne({ _id: key, claim }).exec();
      if (error instanceof AppError) throw error;
      throw new AppError('unavailable', `Mail not sent: ${(error as Error).message}`);
    }
    await this.results.updateOne(
      this.log,
      { _id: key, claim },
      {
        $set: {
          state: message ? 'sent' : 'skipped',
          sent_at: message ? this.now() : null,
          to: message?.to ?? null,
          subject: message?.subject ?? null,
        },
      },
    );
    if (message) logger.info({ mail: key }, 'mail sent');
    return message ? 'sent' : 'skipped';
  }

  private async claim(key: string, claim: string): Promise<'claimed' | 'duplicate'> {
    try {
      await this.claims.push({
        _id: key,
        state: 'sending',
        claim,
        claimed_at: this.now(),
        sent_at: null,
        to: null,
        subject: null,
        message_id: null,
      });
      return 'claimed';
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
    const existing = await this.log.findById(key).lean<SentMailRecord>().exec();
    if (!existing) {
      // Released between our insert and this read: a failed attempt; retry the event.
      throw new AppError('unavailable', 'Mail claim released concurrently; retrying.');
    }
    if (existing.state !== 'sending') return 'duplicate';
    if (this.now().getTime() - new Date(existing.claimed_at).getTime() < IN_FLIGHT_MS) {
      throw new AppError('unavailable', 'Mail for this event is being sent; retrying later.');
    }
    // Cut off mid-send long ago: the mail may be out, and one event never sends two.
    return 'duplicate';
  }
}
