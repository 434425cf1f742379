/**
 * Remembers which events a consumer has applied, so a redelivered event has no second effect
 * for handlers whose effect is not naturally idempotent.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import { Batcher } from '@aff/messaging';
import { BatchedLookup } from './batched-lookup';
import { isDuplicateKeyError } from './connection';
import { EVENT_RECORD_KEEP_MS, type RetentionRule } from './retention';

export interface ProcessedEventDoc {
  _id: string;
  processed_at: Date;
}

/** The model of the processed-event records, declared with the service's models. */
export function processedEventModel(connection: Connection): Model<ProcessedEventDoc> {
  const schema = new Schema<ProcessedEventDoc>(
    { _id: { type: String, required: true }, processed_at: { type: Date, required: true } },
    { versionKey: false },
  );
  // The retention job's field (docs/retention.md); used on MongoDB 7, not by the local server.
  schema.index({ processed_at: 1 });
  return (
    (connection.models.ProcessedEvent as Model<ProcessedEventDoc> | undefined) ??
    connection.model<ProcessedEventDoc>('ProcessedEvent', schema, 'processed_events')
  );
}

export class ProcessedEvents {
  /** Records of concurrent handlers share one unordered insert. */
  private readonly records: Batcher<ProcessedEventDoc>;
  /** Checks of concurrent handlers share one `find` by `_id`. */
  private readonly seen: BatchedLookup<true>;

  /**
   * `onRecordFailed`: told when a record could not be written after its event was applied (the
   * event is acknowledged by then; see `once`).
   */
  constructor(
    private readonly model: Model<ProcessedEventDoc>,
    private readonly onRecordFailed: (error: unknown) => void = () => undefined,
  ) {
    this.seen = new BatchedLookup(async (ids) => {
      const found = await model
        .find({ _id: { $in: ids } }, { _id: 1 })
        .lean<{ _id: string }[]>()
        .exec();
      return new Map(found.map((doc) => [doc._id, true as const]));
    });
    this.records = new Batcher<ProcessedEventDoc>({
      flush: async (docs) => {
        try {
          await model.collection.insertMany(docs as never[], { ordered: false });
        } catch (error) {
          // Duplicates mean "already recorded": exactly what a record wants.
          const failures = (error as { writeErrors?: { code: number }[] }).writeErrors;
          if (!failures?.every((f) => f.code === 11000)) throw error;
        }
        return docs.map(() => undefined);
      },
    });
  }

  /** Records older than `EVENT_RECORD_KEEP_MS` are pruned (`retentionJob`). */
  get retention(): RetentionRule {
    return { model: this.model, field: 'processed_at', keepMs: EVENT_RECORD_KEEP_MS };
  }

  async has(consumer: string, eventId: string): Promise<boolean> {
    return (await this.seen.get(`${consumer}:${eventId}`)) !== null;
  }

  async record(consumer: string, eventId: string): Promise<void> {
    try {
      await this.records.push({ _id: `${consumer}:${eventId}`, processed_at: new Date() });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
  }

  /**
   * Runs `apply` unless already recorded; `apply` must itself tolerate a rerun. When `apply`
   * answers `'recorded'`, no record is written.
   *
   * The record is written after `apply` but not awaited: the caller acknowledges the event as
   * soon as its effect is written, and a partition's next event does not wait a round trip for
   * a record no later event needs. Records of concurrent handlers share one insert. A crash in
   * between loses only the record of an event already applied and acknowledged; if the same
   * event ever came again, `apply` would run again, and tolerates that. A record written before
   * `apply` (or beside it) could instead outlive an `apply` that never finished: a lost event.
   */
  async once(
    consumer: string,
    eventId: string,
    apply: () => Promise<void | 'recorded'>,
  ): Promise<boolean> {
    if (await this.has(consumer, eventId)) return false;
    // 'recorded': the effect's own write remembers the event (e.g. a list on the record it
    // changed), so a repeat is a no-op without a record here.
    if ((await apply()) !== 'recorded') this.record(consumer, eventId).catch(this.onRecordFailed);
    return true;
  }
}
