/**
 * Payout exports (domain/exports/export-ports.ts): the export's intent, phase and frozen rows,
 * and its events in `pending_events` (the outbox, written in the same update as the phase).
 */
import { Schema, type Connection, type Model } from 'mongoose';
import type { StoredPendingEvent } from '@aff/mongo';
import type { PayoutExportRecord } from '../domain/exports/export-ports';

export interface PayoutExportDoc extends PayoutExportRecord {
  pending_events: StoredPendingEvent[];
}

const schema = new Schema<PayoutExportDoc>(
  {
    _id: { type: String, required: true },
    merchant_id: { type: String, required: true },
    format: { type: String, required: true },
    currency: { type: String, required: true },
    phase: { type: String, required: true },
    candidate_ids: { type: [String], default: () => [] },
    payout_ids: { type: [String], default: () => [] },
    skipped: { type: Schema.Types.Mixed, default: () => [] },
    rows: { type: Schema.Types.Mixed, default: () => [] },
    total_cents: { type: Number, default: 0 },
    settled_by: { type: String, default: null },
    settled_at: { type: Date, default: null },
    context: { type: Schema.Types.Mixed, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    pending_events: { type: Schema.Types.Mixed, default: () => [] },
  },
  { versionKey: false, minimize: false },
);
schema.index({ merchant_id: 1, created_at: -1 });
schema.index({ phase: 1, updated_at: 1 });

export function payoutExportModel(connection: Connection): Model<PayoutExportDoc> {
  return connection.model<PayoutExportDoc>('PayoutExport', schema, 'payout_exports');
}
