/**
 * The commission stats' sweep (see stats-tally.ts): settles reservations whose writer died or
 * failed (older than `STALE_MS`) from the marks the record writes carry: a record whose
 * `stats_marks` holds the reservation's id was written under it, anything else was not.
 */
import type { Collection } from 'mongoose';
import type { RecordKind, StatsDoc, StatsScope } from './commission-stats.schema';
import { STALE_MS, appliedSum, docOp, type StatsTally } from './stats-tally';

export const STATS_SWEEP_EVERY_MS = 30_000;
const SCOPES: StatsScope[] = ['affiliate', 'merchant'];

/** A record as the sweep reads it: only its marks. */
interface Marked {
  _id: string;
  stats_marks?: string[];
}

/** The commissions and sales collections, by the kind a reservation names. */
export type MarkedCollections = Record<RecordKind, Collection>;

export class StatsSweep {
  constructor(
    private readonly tally: StatsTally,
    private readonly records: MarkedCollections,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The number of stale reservations settled. */
  async run(): Promise<number> {
    const olderThan = new Date(this.now().getTime() - STALE_MS);
    let settled = 0;
    for (const scope of SCOPES) {
      const model = this.tally.models[scope];
      const docs = await model
        .find({ reserved_count: { $gt: 0 } })
        .limit(200)
        .lean<StatsDoc[]>()
        .exec();
      for (const doc of docs) {
        for (const [entryId, entry] of Object.entries(doc.reserved ?? {})) {
          if (new Date(entry.at) >= olderThan) continue;
          const marks = await this.marksOf(
            doc.merchant_id,
            entry.refs.map((ref) => [ref.k, ref.r]),
          );
          const delta = appliedSum(
            entry.refs,
            (ref) => marks.get(`${ref.k}:${ref.r}`)?.includes(entryId) ?? false,
          );
          const key = { scope, merchantId: doc.merchant_id, id: doc._id };
          // A settle that fails was settled meanwhile (by its writer, or another sweep).
          const [gone] = await this.tally.bulk(scope, [
            docOp({ key, reserves: [], settles: [{ ...key, kind: 'settle', entryId, delta }] }),
          ]);
          if (!gone) settled++;
        }
      }
    }
    return settled;
  }

  private async marksOf(
    merchantId: string,
    refs: [RecordKind, string][],
  ): Promise<Map<string, string[]>> {
    const marks = new Map<string, string[]>();
    for (const kind of ['c', 's'] as RecordKind[]) {
      const ids = [...new Set(refs.filter(([k]) => k === kind).map(([, id]) => id))];
      if (ids.length === 0) continue;
      const docs = await this.records[kind]
        .find<Marked>({ _id: { $in: ids }, merchant_id: merchantId } as never, {
          projection: { stats_marks: 1 },
        })
        .toArray();
      for (const doc of docs) marks.set(`${kind}:${doc._id}`, doc.stats_marks ?? []);
    }
    return marks;
  }
}
