/** Reading payout exports: list, retrieve, and download a file. */
import type { FileReply, Paginated, PayoutExportView } from '@aff/contracts';
import { errors, paginate, type PageRequest } from '@aff/api';
import type { CallContext } from '../ports';
import type { ExportPresenter } from './export-presenter';
import type { ExportStore } from './export-ports';

const PART = /^[1-9][0-9]{0,5}$/;

export class ExportQueries {
  constructor(
    private readonly exports: ExportStore,
    private readonly presenter: ExportPresenter,
  ) {}

  async list(ctx: CallContext, page: PageRequest): Promise<Paginated<PayoutExportView>> {
    const result = await this.exports.page(ctx.merchantId, page.skip, page.limit);
    return paginate(
      result.items.map((record) => this.presenter.view(record)),
      result.total,
      page,
    );
  }

  async get(ctx: CallContext, id: string): Promise<PayoutExportView> {
    const record = await this.exports.findShown(ctx.merchantId, id);
    if (!record) throw errors.notFound('Payout export', id);
    return this.presenter.view(record);
  }

  async file(ctx: CallContext, id: string, part: string): Promise<FileReply> {
    const record = await this.exports.findShown(ctx.merchantId, id);
    if (!record) throw errors.notFound('Payout export', id);
    const file = PART.test(part) ? this.presenter.file(record, Number(part)) : null;
    if (!file) throw errors.notFound('Payout export file', part);
    return file;
  }
}
