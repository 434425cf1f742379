/**
 * Remembers which events a consumer has applied, so a redelivered event has no second effect
 * for handlers whose effect is not naturally idempotent.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import { isDuplicateKeyError } from './connection';

interface ProcessedEventDoc {
  _id: string;
  processed_at: Date;
}

export class ProcessedEvents {
  private readonly model: Model<ProcessedEventDoc>;

  constructor(connection: Connection) {
    const schema = new Schema<ProcessedEventDoc>(
      { _id: { type: String, required: true }, processed_at: { type: Date, required: true } },
      { versionKey: false },
    );
    this.model =
      (connection.models.ProcessedEvent as Model<ProcessedEventDoc> | undefined) ??
      connection.model<ProcessedEventDoc>('ProcessedEvent', schema, 'processed_events');
  }

  async has(consumer: string, eventId: string): Promise<boolean> {
    return (await this.model.exists({ _id: `${consumer}:${eventId}` })) !== null;
  }

  async record(consumer: string, eventId: string): Promise<void> {
    try {
      await this.model.create({ _id: `${consumer}:${eventId}`, processed_at: new Date() });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
  }

  /** Runs `apply` unless already recorded. `apply` must itself tolerate a rerun after a crash. */
  async once(consumer: string, eventId: string, apply: () => Promise<void>): Promise<boolean> {
    if (await this.has(consumer, eventId)) return false;
    await apply();
    await this.record(consumer, eventId);
    return true;
  }
}
