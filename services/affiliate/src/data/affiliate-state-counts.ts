/**
 * How many affiliates each merchant has in each state, in one document per merchant
 * (`affiliate_state_counts`), so the console's overview reads one document, not the merchant's
 * affiliates. The affiliate repository keeps it: `$inc` of the new state right after an
 * affiliate is inserted, and of both states right after a conditional change of `state` (the
 * update applied only if the state was still the one read, so the old state is known).
 *
 * A merchant whose document does not exist yet (one that had affiliates before this count was
 * kept, or none yet) is counted once, by state, on the first read, and the document inserted;
 * writers never create it (`$inc` without upsert), so a count cannot start from a part. Not
 * exact in two narrow cases, written down in docs/console.md: an affiliate written between that
 * first count and its insert, and a process that died between an affiliate's write and the
 * `$inc` (a failed `$inc` is logged, not retried).
 */
import { Schema, type Connection, type Model } from 'mongoose';
import { AFFILIATE_STATES, type AffiliateState } from '@aff/contracts';
import type { AffiliateDocument } from './affiliate.schema';

export type StateCounts = Record<AffiliateState, number>;
type StateCountDoc = { _id: string } & Partial<StateCounts>;

export function affiliateStateCountModel(connection: Connection): Model<StateCountDoc> {
  return (
    (connection.models.AffiliateStateCount as Model<StateCountDoc> | undefined) ??
    connection.model<StateCountDoc>(
      'AffiliateStateCount',
      new Schema<StateCountDoc>(
        {
          _id: { type: String, required: true },
          ...Object.fromEntries(AFFILIATE_STATES.map((s) => [s, { type: Number, default: 0 }])),
        },
        { versionKey: false },
      ),
      'affiliate_state_counts',
    )
  );
}

const zero = (): StateCounts =>
  Object.fromEntries(AFFILIATE_STATES.map((s) => [s, 0])) as StateCounts;

export class AffiliateStateCounts {
  constructor(
    private readonly counts: Model<StateCountDoc>,
    private readonly affiliates: Model<AffiliateDocument>,
    private readonly onFailed: (error: unknown) => void = () => undefined,
  ) {}

  /** One affiliate moved `from` a state (null: new) `to` another. */
  async moved(merchantId: string, from: AffiliateState | null, to: AffiliateState): Promise<void> {
    if (from === to) return;
    const inc: Partial<StateCounts> = { [to]: 1 };
    if (from) inc[from] = -1;
    await this.counts.collection
      .updateOne({ _id: merchantId } as never, { $inc: inc })
      .catch(this.onFailed);
  }

  async get(merchantId: string): Promise<StateCounts> {
    const doc = await this.counts.findById(merchantId).lean<StateCountDoc>().exec();
    if (doc) return { ...zero(), ...pickStates(doc) };
    return this.countOnce(merchantId);
  }

  /** The first read for a merchant: counts its affiliates by state once and keeps the count. */
  private async countOnce(merchantId: string): Promise<StateCounts> {
    const rows = await this.affiliates
      .aggregate<{ _id: AffiliateState; n: number }>([
        { $match: { merchant_id: merchantId } },
        { $group: { _id: '$state', n: { $sum: 1 } } },
      ])
      .exec();
    const counts = zero();
    for (const row of rows) if (row._id in counts) counts[row._id] = row.n;
    try {
      await this.counts.collection.insertOne({ _id: merchantId, ...counts } as never);
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
