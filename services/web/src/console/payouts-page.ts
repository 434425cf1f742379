/**
 * The payouts page (`/console/payouts`): unpaid amounts per currency and state (the payout
 * service's internal payoutTotals, one grouped query), "Generate payouts" (the REST API's
 * generatePayouts), a form that creates an export (./payout-exports-page.ts takes it from
 * there), and the payouts list (listPayouts, filters in the URL) with "Mark paid" (payPayout).
 * Every action is the REST API's operation, so its events and webhooks are the API's.
 */
import express, { type Router } from 'express';
import {
  OPERATIONS,
  PAYOUT_EXPORT_FORMATS,
  PAYOUT_STATES,
  type PayoutTotals,
  type PayoutView,
} from '@aff/contracts';
import { html } from '../portal/html';
import { money } from '../portal/page-parts';
import {
  backToList,
  dataTable,
  listHref,
  readListQuery,
  rowForm,
  rules,
  type Column,
  type ListQuery,
  type ListSpec,
} from './components/data-table';
import { consoleCalls } from './console-data';
import { consolePage, ownerAction } from './console-http';
import type { PageDeps } from './console-pages';
import { act, actionToken, dateCell, notice, VIEWER_NOTE } from './console-act';
import { actionForm } from './components/action-form';
import { formFields } from './components/form-fields';

const PAGE_SIZE = 25;

export const PAYOUTS_LIST: ListSpec = {
  path: '/console/payouts',
  filters: { state: rules.oneOf(PAYOUT_STATES), affiliate_id: rules.id() },
  fixedOrder: '-created_at',
};

export const FORMAT_NAMES: Record<(typeof PAYOUT_EXPORT_FORMATS)[number], string> = {
  paypal_payouts: 'PayPal Payouts',
  wise_batch: 'Wise batch',
  csv: 'CSV (spreadsheet)',
};

export function payoutsRoutes({ rpc, body, once }: PageDeps): Router {
  const router = express.Router();

  router.get('/console/payouts', async (req, res) => {
    const q = readListQuery(PAYOUTS_LIST, req.query);
    const calls = consoleCalls(rpc, res);
    const [totals, list] = await Promise.all([
      calls.internal(OPERATIONS.payoutTotals, {}),
      calls.call('listPayouts', {
        query: {
          ...(q.filters.state ? { state: q.filters.state } : {}),
          ...(q.filters.affiliate_id ? { affiliate_id: q.filters.affiliate_id } : {}),
          page: String(q.page),
          limit: String(PAGE_SIZE),
        },
        expand: ['affiliate'],
      }),
    ]);
    const csrf = actionToken(res);
    consolePage(
      res,
      200,
      'Payouts',
      html`${notice(req.query)} ${totalsSection(totals, csrf)}
      ${listSection(list.data, list.pagination, q, csrf)}`,
    );
  });

  router.post('/console/payouts/generate', ...ownerAction(body, once), async (req, res) => {
    const currency = typeof req.body?.currency === 'string' ? req.body.currency : '';
    await act(rpc, res, async (calls) => {
      const made = await calls.call('generatePayouts', { body: currency ? { currency } : {} });
      return `/console/payouts?done=generated&n=${made.data.length}`;
    });
  });

  router.post('/console/payouts/:id/pay', ...ownerAction(body, once), async (req, res) => {
    await act(rpc, res, async (calls) => {
      await calls.call('payPayout', { params: { id: String(req.params.id) } });
      return backToList(PAYOUTS_LIST, req.body);
    });
  });
  return router;
}

const generateForm = (csrf: string) =>
  html`<div class="actions">
    ${actionForm({
      action: '/console/payouts/generate',
      csrf,
      text: 'Generate payouts',
      primary: true,
      block: true,
    })}
  </div>`;

/** Unpaid payouts per currency, with the export form for the currencies that have due ones. */
function totalsSection(totals: PayoutTotals, csrf: string | null) {
  const currencies = [...new Set(totals.data.map((row) => row.currency))];
  const sum = (currency: string, state: string) =>
    totals.data.find((row) => row.currency === currency && row.state === state);
  const figure = (currency: string, state: string) => {
    const row = sum(currency, state);
    return row
      ? html`${money(row.amount, currency)} <span class="muted">(${row.count})</span>`
      : '—';
  };
  const dueCurrencies = currencies.filter((currency) => sum(currency, 'due'));
  return html`<section aria-labelledby="due-heading">
    <h2 id="due-heading">Unpaid payouts per currency</h2>
    <div class="table" tabindex="0" role="region" aria-label="Unpaid payouts per currency">
      <table>
        <thead>
          <tr>
            <th scope="col">Currency</th>
            <th scope="col" class="num">Due</th>
            <th scope="col" class="num">Pending (below minimum)</th>
            <th scope="col" class="num">Processing</th>
          </tr>
        </thead>
        <tbody>
          ${
            currencies.length
              ? currencies.map(
                  (currency) =>
                    html`<tr>
                      <th scope="row">${currency}</th>
                      <td class="num">${figure(currency, 'due')}</td>
                      <td class="num">${figure(currency, 'pending')}</td>
                      <td class="num">${figure(currency, 'processing')}</td>
                    </tr>`,
                )
              : html`<tr>
                  <td colspan="4">Nothing unpaid. Generate payouts to bundle due commissions.</td>
                </tr>`
          }
        </tbody>
      </table>
    </div>
    ${csrf ? generateForm(csrf) : VIEWER_NOTE}
    <h3>Export due payouts to a payment file</h3>
    ${
      !csrf
        ? ''
        : dueCurrencies.length
          ? html`<form class="filters" method="post" action="/console/payouts/exports">
              ${formFields(csrf)}
              <label for="export-currency"
                >Currency to export
                <select id="export-currency" name="currency">
                  ${dueCurrencies.map((c) => html`<option value="${c}">${c}</option>`)}
                </select></label
              >
              <label for="export-format"
                >File format
                <select id="export-format" name="format">
                  ${PAYOUT_EXPORT_FORMATS.map(
                    (f) => html`<option value="${f}">${FORMAT_NAMES[f]}</option>`,
                  )}
                </select></label
              >
              <button type="submit">Create export</button>
            </form>`
          : html`<p class="muted">No payout is due, so there is nothing to export.</p>`
    }
    <p><a href="/console/payouts/exports">All exports</a></p>
  </section>`;
}

function listSection(
  rows: PayoutView[],
  pagination: Parameters<typeof dataTable>[0]['pagination'],
  q: ListQuery,
  csrf: string | null,
) {
  const name = (p: PayoutView) =>
    p.affiliate ? `${p.affiliate.first_name} ${p.affiliate.last_name}` : 'Affiliate';
  const columns: Column<PayoutView>[] = [
    { header: 'Created', sortKey: 'created_at', cell: (p) => dateCell(p.created_at) },
    {
      header: 'Affiliate',
      // The list's affiliate filter: this affiliate's payouts only.
      cell: (p) =>
        p.affiliate
          ? html`<a href="${listHref(q, { filters: { affiliate_id: p.affiliate.id } })}"
              >${name(p)}</a
            >`
          : null,
    },
    { header: 'Amount', num: true, cell: (p) => money(p.amount, p.currency) },
    { header: 'State', cell: (p) => html`<span class="state">${p.state}</span>` },
    { header: 'Paid', cell: (p) => (p.paid_at ? dateCell(p.paid_at) : null) },
  ];
  if (csrf) {
    columns.push({
      header: 'Action',
      cell: (p) =>
        p.state === 'due' || p.state === 'pending'
          ? rowForm(`/console/payouts/${p.id}/pay`, 'Mark paid', name(p), csrf, q)
          : null,
    });
  }
  return html`<section aria-labelledby="list-heading">
    <h2 id="list-heading">Payouts</h2>
    <form class="filters" method="get" action="/console/payouts">
      <label for="state"
        >State
        <select id="state" name="state">
          <option value="">All</option>
          ${PAYOUT_STATES.map(
            (s) =>
              html`<option value="${s}" ${s === q.filters.state ? html`selected` : ''}>
                ${s}
              </option>`,
          )}
        </select></label
      >
      ${
        q.filters.affiliate_id
          ? html`<input type="hidden" name="affiliate_id" value="${q.filters.affiliate_id}" />`
          : ''
      }
      <button type="submit">Filter</button>
      ${
        q.filters.affiliate_id || q.filters.state
          ? html`<a href="/console/payouts">Show all payouts</a>`
          : ''
      }
    </form>
    ${dataTable({ label: 'Payouts', query: q, columns, rows, pagination, empty: 'No payouts.' })}
  </section>`;
}
