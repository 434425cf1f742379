/** The affiliates' stored figures over MongoDB, for the overview's totals (program-stats.ts). */
import type { Model } from 'mongoose';
import type { AffiliateFigures, ProgramFiguresSource } from '../domain/program-stats';
import type { AffiliateDocument } from './affiliate.schema';

const FIGURES = {
  _id: 1,
  state: 1,
  visitors: 1,
  leads: 1,
  conversions: 1,
  commission_stats: 1,
  created_at: 1,
} as const;

export class ProgramFiguresRepository implements ProgramFiguresSource {
  constructor(private readonly affiliates: Model<AffiliateDocument>) {}

  async *figures(merchantId: string): AsyncIterable<AffiliateFigures> {
    // A cursor with a projection: the counters only, streamed (no page of 10,000 documents).
    const cursor = this.affiliates
      .find({ merchant_id: merchantId }, FIGURES)
      .lean<AffiliateFigures[]>()
      .cursor({ batchSize: 1000 });
    for await (const doc of cursor) yield doc as AffiliateFigures;
  }
}
