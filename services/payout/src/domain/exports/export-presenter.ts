/** Payout exports as the API shows them, and their files. */
import type { FileReply, PayoutExportState, PayoutExportView } from '@aff/contracts';
import { exportFile, fileParts } from './export-files';
import type { ExportPhase, PayoutExportRecord } from './export-ports';

/** A decided step shows as its outcome: the recovery finishes it if its process died. */
const STATE_OF: Partial<Record<ExportPhase, PayoutExportState>> = {
  open: 'open',
  completing: 'completed',
  completed: 'completed',
  canceling: 'canceled',
  canceled: 'canceled',
};

export class ExportPresenter {
  /** `publicUrl`: the gateway's base URL, where the files download. */
  constructor(private readonly publicUrl: string) {}

  view(record: PayoutExportRecord): PayoutExportView {
    const base = `${this.publicUrl.replace(/\/+$/, '')}/v1/payout_exports/${record._id}/files`;
    return {
      id: record._id,
      format: record.format,
      currency: record.currency,
      state: STATE_OF[record.phase] ?? 'open',
      payout_ids: record.payout_ids,
      skipped: record.skipped,
      count: record.payout_ids.length,
      total_cents: record.total_cents,
      files: fileParts(record.format, record.rows.length).map(({ part, rows }) => ({
        part,
        rows,
        url: `${base}/${part}`,
      })),
      created_at: new Date(record.created_at).toISOString(),
    };
  }

  /** File `part` of the export, named after its format, currency and id; null if none. */
  file(record: PayoutExportRecord, part: number): FileReply | null {
    const content = exportFile(record.format, record.rows, part);
    if (content === null) return null;
    return {
      filename: `payouts-${record.format}-${record.currency}-${record._id}-${part}.csv`,
      content,
    };
  }
}
