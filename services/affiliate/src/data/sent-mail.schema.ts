import { Schema, type Connection, type Model } from 'mongoose';

/**
 * One row per mail-worthy event (`_id` = kind + event id). Inserting it is the claim that makes
 * sure one event never sends two mails; `sending` rows are in flight or were cut off mid-send.
 */
export interface SentMailRecord {
  _id: string;
  state: 'sending' | 'sent' | 'skipped';
  /** Who holds the claim, so a failed sender only releases its own. */
  claim: string;
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
