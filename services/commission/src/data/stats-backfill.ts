/**
 * Builds `commission_stats` once from the commissions and sales a deployment already has
 * (written before the commission service kept them): each record without `stats_marks` is
 * counted under a reservation like any write (stats-tally.ts), by an update conditional on its
 * version and on its still having no marks, so a record is counted exactly once whoever gets
 * there first: this backfill, on any replica, or the record's own next change (which counts a
 * never-counted record whole). Idempotent: a second run finds nothing to count.
 *
 * It runs at start-up and then on an interval; once a pass finds nothing it records that
 * (`commission_stats_backfill`), and after an hour of that passes stop scanning (on the local
 * server the look-up scans every record). The hour covers a rolling upgrade, whose old
 * replicas still write records without marks. docs/decisions.md, "Commission stats".
 */
import type { Collection, Model } from 'mongoose';
import { ScopedRepository, driverCollection } from '@aff/mongo';
import { saleFigures, commissionFigures, type StatVector } from '../domain/commission-stats';
import type { CommissionDoc } from './commission.schema';
import type { RecordKind } from './commission-stats.schema';
import type { SaleDoc } from './sale.schema';
import type { StatsTally } from './stats-tally';

export const STATS_BACKFILL_EVERY_MS = 300_000;
/** After the first pass that found nothing, passes go on this long, then stop. */
const KEEP_CHECKING_MS = 3_600_000;
const CHUNK = 500;
const MARKER_ID = 'commission_stats';

type Counted = SaleDoc | CommissionDoc;

/** The pass's progress (`commission_stats_backfill`, one document). */
interface Marker {
  _id: string;
  done_at?: Date;
}

/** One kind's records: a scan for uncounted ones (every merchant), and the scoped count. */
interface Records {
  uncounted(limit: number): Promise<Counted[]>;
  mark(doc: Counted, marks: string[]): Promise<boolean>;
}

function recordsOf<T extends Counted>(model: Model<T>): Records {
  const scopedRecords = new ScopedRepository(model);
  return {
    uncounted: (limit) =>
      driverCollection(model)
        .find<Counted>({ stats_marks: { $exists: false } })
        .limit(limit)
        .toArray(),
    // Only while it is the version read and still has no marks: counted exactly once.
    mark: async (doc, marks) => {
      const { modified } = await scopedRecords.updateOne(
        doc.merchant_id,
        { _id: doc._id, updated_at: doc.updated_at, stats_marks: { $exists: false } },
        { $set: { stats_marks: marks } },
      );
      return modified === 1;
    },
  };
}

export class StatsBackfill {
  private readonly records: Record<RecordKind, Records>;
  private readonly figures: Record<RecordKind, (doc: Counted) => StatVector> = {
    s: (doc) => saleFigures(doc as SaleDoc),
    c: (doc) => commissionFigures(doc as CommissionDoc),
  };

  constructor(
    private readonly tally: StatsTally,
    sales: Model<SaleDoc>,
    commissions: Model<CommissionDoc>,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.records = { s: recordsOf(sales), c: recordsOf(commissions) };
  }

  /** The number of records counted by this pass. */
  async run(): Promise<number> {
    const marker = await this.markers().findOne({ _id: MARKER_ID });
    const doneAt = marker?.done_at;
    if (doneAt && this.now().getTime() - new Date(doneAt).getTime() > KEEP_CHECKING_MS) return 0;
    let counted = 0;
    for (const kind of ['s', 'c'] as RecordKind[]) {
      for (;;) {
        const docs = await this.records[kind].uncounted(CHUNK);
        if (docs.length === 0) break;
        const results = await Promise.all(docs.map((doc) => this.countOne(kind, doc)));
        counted += results.filter(Boolean).length;
        // All changed meanwhile (their writers counted them, or the next pass will).
        if (!results.some(Boolean)) break;
      }
    }
    if (counted === 0 && !doneAt)
      await this.markers().updateOne(
        { _id: MARKER_ID },
        { $set: { done_at: this.now() } },
        { upsert: true },
      );
    return counted;
  }

  /** True when this pass counted it (false: another writer changed or counted it first). */
  private async countOne(kind: RecordKind, doc: Counted): Promise<boolean> {
    const reservation = await this.tally.reserve([
      {
        merchantId: doc.merchant_id,
        affiliateId: doc.affiliate_id,
        kind,
        recordId: doc._id,
        currency: doc.currency,
        delta: this.figures[kind](doc),
      },
    ]);
    const applied = await this.records[kind].mark(doc, reservation ? [reservation.id] : []);
    await reservation?.settle(() => applied);
    return applied;
  }

  private markers(): Collection<Marker> {
    return this.tally.models.merchant.db.collection<Marker>('commission_stats_backfill');
  }
}
