/**
 * The commission stats' sweep (see stats-tally.ts): settles reservations whose writer died or
 * failed (older than `STALE_MS`) from the marks the record writes carry: a record whose
 * `stats_marks` holds the reservation's id was written under it, anything else was not.
 */
import type { FilterQuery, Model } from 'mongoose';
import { ScopedRepository } from '@aff/mongo';
import type { CommissionDoc } from './commission.schema';
import type { RecordKind, StatsDoc, StatsScope } from './commission-stats.schema';
import type { SaleDoc } from './sale.schema';
import { STALE_MS, appliedSum, docOp, type StatsTally } from './stats-tally';

export const STATS_SWEEP_EVERY_MS = 30_000;
const SCOPES: StatsScope[] = ['affiliate', 'merchant'];

/** A record as the sweep reads it: only its marks. */
interface Marked {
  _id: string;
  stats_marks?: string[];
}

/** The commissions and sales models, by the kind a reservation names. */
export interface MarkedModels {
  c: Model<CommissionDoc>;
  s: Model<SaleDoc>;
}

/** The marks of one merchant's records of one kind, by id. */
type MarksReader = (merchantId: string, ids: string[]) => Promise<Marked[]>;

function marksReader<T extends { _id: string; merchant_id: string }>(model: Model<T>): MarksReader {
  const records = new ScopedRepository(model);
  return (merchantId, ids) =>
    records.find<Marked>(merchantId, { _id: { $in: ids } } as FilterQuery<T>, {
      projection: { stats_marks: 1 },
    });
}

export class StatsSweep {
  private readonly records: Record<RecordKind, MarksReader>;

  constructor(
    private readonly tally: StatsTally,
    records: MarkedModels,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.records = { c: marksReader(records.c), s: marksReader(records.s) };
  }

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
      const docs = await this.records[kind](merchantId, ids);
      for (const doc of docs) marks.set(`${kind}:${doc._id}`, doc.stats_marks ?? []);
    }
    return marks;
  }
}
