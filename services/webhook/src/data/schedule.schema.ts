import { Schema, type Connection, type Model } from 'mongoose';

/**
 * The retry schedule: one entry per pending delivery, removed once it is delivered or failed.
 * The poller reads this small collection instead of the whole delivery log (FerretDB scans
 * rather than uses indexes, so a poll over the log would grow with its history).
 */
export interface ScheduleRecord {
  /** The delivery id. */
  _id: string;
  merchant_id: string;
  endpoint_id: string;
  next_attempt_at: Date;
}

const schema = new Schema<ScheduleRecord>(
  {
    _id: { type: String, required: true },
    merchant_id: { type: String, required: true },
    endpoint_id: { type: String, required: true },
    next_attempt_at: { type: Date, required: true },
  },
  { versionKey: false },
);
schema.index({ next_attempt_at: 1 });
schema.index({ merchant_id: 1, endpoint_id: 1 });

export function scheduleModel(connection: Connection): Model<ScheduleRecord> {
  return connection.model<ScheduleRecord>('WebhookSchedule', schema, 'webhook_schedule');
}
