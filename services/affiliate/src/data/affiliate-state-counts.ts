/**
 * How many affiliates each merchant has in each state, in one document per merchant
 * (`affiliate_state_counts`), so the console's overview reads one document, not the merchant's
 * affiliates.
 *
 * Exact across crashes, without transactions. Every write that sets an affiliate's state (its
 * insert, a conditional change of state) also records, in the same document write, the move it
 * made (`state_move`: from, to, and the id of the event written with it). The move is applied
 * to the count once, guarded by its id (the count document keeps the newest ids it applied),
 * before the write's events are relayed. A writer that died in between left the event pending,
 * so the outbox sweep finds the affiliate and applies its move (`repairLeftovers`), and the next
 * change of that affiliate applies it first too. A move whose event is no longer pending was
 * applied, so an old move is never applied again after its id left the kept ids.
 *
 * A merchant whose document does not exist yet (affiliates written before this count was kept,
 * or none yet) is counted once, by state, on the first read, and the document inserted with the
 * time of that count: moves made before it are in the count and are not applied again. Writers
 * never create the document (`$inc` without upsert), so a count cannot start from a part. Not
 * exact in one narrow case (docs/console.md): a move written while that first count ran.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import { AFFILIATE_STATES, type AffiliateState } from '@aff/contracts';
import { ScopedRepository, driverCollection } from '@aff/mongo';
import type { StateMove } from '../domain/records';
import type { AffiliateDocument } from './affiliate.schema';

export type StateCounts = Record<AffiliateState, number>;
type StateCountDoc = { _id: string; applied?: string[]; counted_at?: Date } & Partial<StateCounts>;

/** Ids of applied moves kept per merchant: far more than can be pending at once. */
const APPLIED_KEPT = 1000;

export function affiliateStateCountModel(connection: Connection): Model<StateCountDoc> {
  return (
    (connection.models.AffiliateStateCount as Model<StateCountDoc> | undefined) ??
    connection.model<StateCountDoc>(
      'AffiliateStateCount',
      new Schema<StateCountDoc>(
        {
          _id: { type: String, required: true },
          ...Object.fromEntries(AFFILIATE_STATES.map((s) => [s, { type: Number, default: 0 }])),
          applied: { type: [String], default: () => [] },
          counted_at: { type: Date },
        },
        { versionKey: false },
      ),
      'affiliate_state_counts',
    )
  );
}

const zero = (): StateCounts =>
  Object.fromEntries(AFFILIATE_STATES.map((s) => [s, 0])) as StateCounts;

/** Whether the move's event is still in the affiliate's outbox (so it may not be applied). */
export function moveMayBeUnapplied(doc: Pick<AffiliateDocument, 'state_move' | 'pending_events'>) {
  const move = doc.state_move;
  return !!move && (doc.pending_events ?? []).some((event) => event.id === move.id);
}

export class AffiliateStateCounts {
  /** The first count's reads of one merchant's affiliates. */
  private readonly scopedAffiliates: ScopedRepository<AffiliateDocument>;

  constructor(
    private readonly counts: Model<StateCountDoc>,
    private readonly affiliates: Model<AffiliateDocument>,
  ) {
    this.scopedAffiliates = new ScopedRepository(affiliates);
  }

  /** Applies one move to the merchant's count, once (a repeat of its id changes nothing). */
  async apply(merchantId: string, move: StateMove): Promise<void> {
    if (move.from === move.to) return;
    const inc: Partial<StateCounts> = { [move.to]: 1 };
    if (move.from) inc[move.from] = -1;
    await driverCollection(this.counts).updateOne(
      // Moves made before the merchant's first count are in that count already.
      { _id: merchantId, applied: { $ne: move.id }, counted_at: { $not: { $gte: move.at } } },
      { $inc: inc, $push: { applied: { $each: [move.id], $slice: -APPLIED_KEPT } } },
    );
  }

  /** The outbox sweep's repair: the moves of affiliates whose writer died before applying them. */
  async repairLeftovers(docs: { _id: string; merchant_id: string }[]): Promise<void> {
    if (docs.length === 0) return;
    const found = await this.affiliates
      .find({ _id: { $in: docs.map((d) => d._id) } }, { state_move: 1, pending_events: 1 })
      .lean<Pick<AffiliateDocument, '_id' | 'merchant_id' | 'state_move' | 'pending_events'>[]>()
      .exec();
    const merchantOf = new Map(docs.map((d) => [d._id, d.merchant_id]));
    for (const doc of found) {
      const merchantId = merchantOf.get(doc._id);
      if (merchantId && doc.state_move && moveMayBeUnapplied(doc))
        await this.apply(merchantId, doc.state_move);
    }
  }

  async get(merchantId: string): Promise<StateCounts> {
    const doc = await this.counts.findById(merchantId).lean<StateCountDoc>().exec();
    if (doc) return { ...zero(), ...pickStates(doc) };
    return this.countOnce(merchantId);
  }

  /** The first read for a merchant: counts its affiliates by state once and keeps the count. */
  private async countOnce(merchantId: string): Promise<StateCounts> {
    const countedAt = new Date();
    const rows = await this.scopedAffiliates.aggregate<{ _id: AffiliateState; n: number }>(
      merchantId,
      {},
      [{ $group: { _id: '$state', n: { $sum: 1 } } }],
    );
    const counts = zero();
    for (const row of rows) if (row._id in counts) counts[row._id] = row.n;
    try {
      await driverCollection(this.counts).insertOne({
        _id: merchantId,
        ...counts,
        applied: [],
        counted_at: countedAt,
      });
      return counts;
    } catch (error) {
      // Another first read inserted it meanwhile: that one is the count.
      if ((error as { code?: number }).code !== 11000) throw error;
      const doc = await this.counts.findById(merchantId).lean<StateCountDoc>().exec();
      return { ...zero(), ...pickStates(doc ?? { _id: merchantId }) };
    }
  }
}

function pickStates(doc: StateCountDoc): Partial<StateCounts> {
  return Object.fromEntries(
    AFFILIATE_STATES.filter((s) => typeof doc[s] === 'number').map((s) => [s, doc[s]]),
  );
}
