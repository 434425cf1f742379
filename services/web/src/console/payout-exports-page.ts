/**
 * Payout exports in the browser (`/console/payouts/exports`): the list (listPayoutExports),
 * one export with its files, skipped payouts, and Complete / Cancel (completePayoutExport,
 * cancelPayoutExport), the create form's target (createPayoutExport), and each file downloaded
 * through getPayoutExportFile: the same bytes, Content-Type and file name the REST API serves,
 * and only ever the session's merchant's (another's id is the operation's 404).
 */
import express, { type Response, type Router } from 'express';
import { OPERATIONS, type FileReply, type PayoutExportView } from '@aff/contracts';
import { html } from '../portal/html';
import { money } from '../portal/page-parts';
import { dataTable, readListQuery, type Column, type ListSpec } from './components/data-table';
import { consoleCalls, ConsoleReplyError } from './console-data';
import { consolePage, message, ownerAction } from './console-http';
import type { PageDeps } from './console-pages';
import { act, actionToken, dateCell, notice, reason, VIEWER_NOTE } from './console-act';
import { FORMAT_NAMES } from './payouts-page';
import { actionForm } from './components/action-form';

const PAGE_SIZE = 25;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The REST file route's Content-Type (the contract map's `response.contentType`). */
const FILE_TYPE = OPERATIONS.getPayoutExportFile.response.contentType ?? 'text/csv; charset=utf-8';

export const EXPORTS_LIST: ListSpec = {
  path: '/console/payouts/exports',
  filters: {},
  fixedOrder: '-created_at',
};

const base = (id: string) => `/console/payouts/exports/${id}`;

export function payoutExportsRoutes({ rpc, body, once }: PageDeps): Router {
  const router = express.Router();

  router.get('/console/payouts/exports', async (req, res) => {
    const q = readListQuery(EXPORTS_LIST, req.query);
    const list = await consoleCalls(rpc, res).call('listPayoutExports', {
      query: { page: String(q.page), limit: String(PAGE_SIZE) },
    });
    const columns: Column<PayoutExportView>[] = [
      {
        header: 'Created',
        sortKey: 'created_at',
        cell: (e) => html`<a href="${base(e.id)}">${dateCell(e.created_at)}</a>`,
      },
      { header: 'Format', cell: (e) => FORMAT_NAMES[e.format] },
      { header: 'State', cell: (e) => html`<span class="state">${e.state}</span>` },
      { header: 'Payouts', num: true, cell: (e) => e.count },
      { header: 'Total', num: true, cell: (e) => money(e.total_cents, e.currency) },
      { header: 'Files', cell: (e) => fileLinks(e) },
    ];
    consolePage(
      res,
      200,
      'Payout exports',
      html`<section aria-labelledby="exports-heading">
        <h2 id="exports-heading">Payout exports</h2>
        <p><a href="/console/payouts">Back to payouts</a></p>
        ${dataTable({
          label: 'Payout exports',
          query: q,
          columns,
          rows: list.data,
          pagination: list.pagination,
          empty: 'No exports yet.',
        })}
      </section>`,
    );
  });

  router.post('/console/payouts/exports', ...ownerAction(body, once), async (req, res) => {
    const sent = (req.body ?? {}) as Record<string, unknown>;
    await act(rpc, res, async (calls) => {
      const made = await calls.call('createPayoutExport', {
        body: { format: sent.format, currency: sent.currency },
      });
      return `${base(made.id)}?done=created`;
    });
  });

  router.get('/console/payouts/exports/:id', async (req, res) => {
    const found = await read(res, () =>
      consoleCalls(rpc, res).call('getPayoutExport', { params: { id: String(req.params.id) } }),
    );
    if (!found) return;
    consolePage(
      res,
      200,
      'Payout export',
      html`${notice(req.query)} ${detail(found, actionToken(res))}`,
    );
  });

  router.get('/console/payouts/exports/:id/files/:part', async (req, res) => {
    const file = await read(res, () =>
      consoleCalls(rpc, res).call('getPayoutExportFile', {
        params: { id: String(req.params.id), part: String(req.params.part) },
      }),
    );
    if (!file) return;
    const { filename, content } = file as FileReply;
    // As the gateway sends the REST route's file (rpc-proxy.ts): type, attachment, bytes.
    res.status(200).type(FILE_TYPE).attachment(filename).set('Cache-Control', 'no-store');
    res.send(content);
  });

  router.post(
    '/console/payouts/exports/:id/:action',
    ...ownerAction(body, once),
    async (req, res) => {
      const id = String(req.params.id);
      const action = String(req.params.action);
      if ((action !== 'complete' && action !== 'cancel') || !UUID.test(id)) {
        consolePage(res, 404, 'Not found', message('Not found', 'There is no such action.'));
        return;
      }
      await act(rpc, res, async (calls) => {
        if (action === 'complete') await calls.call('completePayoutExport', { params: { id } });
        else await calls.call('cancelPayoutExport', { params: { id } });
        return `${base(id)}?done=${action === 'complete' ? 'completed' : 'canceled'}`;
      });
    },
  );
  return router;
}

/**
 * A read whose refusal is a page with the operation's status: 404 for an unknown, malformed or
 * another merchant's id (the operation cannot tell them apart, so neither can the browser).
 */
async function read<T>(res: Response, load: () => Promise<T>): Promise<T | null> {
  try {
    return await load();
  } catch (error) {
    if (!(error instanceof ConsoleReplyError)) throw error;
    const title = error.status === 404 ? 'Not found' : 'Bad request';
    consolePage(res, error.status, title, message(title, reason(error)));
    return null;
  }
}

function fileLinks(e: PayoutExportView) {
  return html`${e.files.map(
    (f) =>
      html`<a href="${base(e.id)}/files/${f.part}" download
        >Download file ${f.part}<span class="sr">
          of the ${e.currency} ${FORMAT_NAMES[e.format]} export</span
        ></a
      > `,
  )}`;
}

function detail(e: PayoutExportView, csrf: string | null) {
  // Drawn only when `csrf` is set (an owner and an open export).
  const action = (name: 'complete' | 'cancel', text: string, primary: boolean) =>
    actionForm({ action: `${base(e.id)}/${name}`, csrf: csrf ?? '', text, primary });
  return html`<section aria-labelledby="export-heading">
      <h2 id="export-heading">${e.currency} export, ${FORMAT_NAMES[e.format]}</h2>
      <dl class="stats">
        <div>
          <dt>State</dt>
          <dd>${e.state}</dd>
        </div>
        <div>
          <dt>Payouts</dt>
          <dd>${e.count}</dd>
        </div>
        <div>
          <dt>Total</dt>
          <dd>${money(e.total_cents, e.currency)}</dd>
        </div>
      </dl>
      <p>Created ${dateCell(e.created_at)}</p>
      <h3>Files</h3>
      <ul>
        ${e.files.map(
          (f) =>
            html`<li>
              <a href="${base(e.id)}/files/${f.part}" download>Download file ${f.part}</a>
              (${f.rows} row${f.rows === 1 ? '' : 's'})
            </li>`,
        )}
      </ul>
      ${e.state === 'open' && !csrf ? VIEWER_NOTE : ''}
      ${
        e.state === 'open' && csrf
          ? html`<p>
                Upload the file${e.files.length === 1 ? '' : 's'} to your payment provider. Once it
                has paid, complete the export (its payouts become paid); if the upload did not
                happen, cancel it (they become due again).
              </p>
              <div class="actions">
                ${action('complete', 'Complete export (mark payouts paid)', true)}
                ${action('cancel', 'Cancel export', false)}
              </div>`
          : ''
      }
      <p>
        <a href="/console/payouts/exports">All exports</a> · <a href="/console/payouts">Payouts</a>
      </p>
    </section>
    ${
      e.skipped.length
        ? html`<section aria-labelledby="skipped-heading">
            <h2 id="skipped-heading">Not in this export</h2>
            <ul>
              ${e.skipped.map(
                (s) => html`<li><code>${s.payout_id}</code>: ${s.reason.replace(/_/g, ' ')}</li>`,
              )}
            </ul>
          </section>`
        : ''
    }`;
}
