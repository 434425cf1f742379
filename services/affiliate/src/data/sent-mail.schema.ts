import { Schema, type Connection, type Model } from 'mongoose';

/**
 * One row per mail-worthy event (`_id` = kind + event id), written once the mail is sent (or
 * found to have nothing to say): a key with a row is not mailed again (mail/once-mailer.ts).
 * `sending` rows are claims of earlier versions, which claimed before sending.
 */
export interface SentMailRecord {
  _id: string;
  state: 'sending' | 'sent' | 'skipped';
  /** Earlier versions' claims only: who held the claim. */
  claim?: string;
  /** When the row was written (the retention job's field). */
  claimed_at: Date;
  sent_at: Date | null;
  to: string | null;
  subject: string | null;
  message_id: string | null;
}

const schema = new Schema<SentMailRecord>(
  {
    _id: String,
    state: String,
    claim: String,
    claimed_at: Date,
    sent_at: { type: Date, default: null },
    to: { type: String, default: null },
    subject: { type: String, default: null },
    message_id: { type: String, default: null },
  },
  { versionKey: false },
);
// The retention job's field (docs/retention.md); used on MongoDB 7, not by the local server.
schema.index({ claimed_at: 1 });

export function sentMailModel(connection: Connection): Model<SentMailRecord> {
  return (
    (connection.models.SentMail as Model<SentMailRecord> | undefined) ??
    connection.model<SentMailRecord>('SentMail', schema, 'sent_mails')
  );
}
