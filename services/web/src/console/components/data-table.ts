/**
 * The console's one table component, for every list: columns (header, cell renderer, optional
 * sort key), rows, an empty text, a pager from the API's `pagination` envelope, sortable headers
 * as links, and an optional checkbox per row inside a form for bulk actions. The list's state
 * (filters, page, sort) lives in the URL; see ./list-query.ts, re-exported here.
 *
 * Accessibility: the table sits in a focusable named region (a keyboard user can scroll it
 * sideways; axe `scrollable-region-focusable`), headers have `scope="col"`, the ordered column
 * has `aria-sort`. On a phone the table scrolls inside that region; the page never does.
 *
 * Use (see affiliates-page.ts):
 *   const q = readListQuery(SPEC, req.query);
 *   dataTable({ label: 'Affiliates', query: q, columns, rows: list.data,
 *               pagination: list.pagination, empty: 'No affiliates found.' })
 * Bulk actions (one form around the table, `name="ids"` checkboxes, one button per action
 * posting `action=<value>`): pass `bulk`. A row's own button inside a bulk table cannot be a
 * nested form: use `rowAction()` (a `formaction` button of the bulk form).
 */
import type { Pagination } from '@aff/contracts';
import { html, SafeHtml } from '../../portal/html';
import { listHref, stateInputs, type ListQuery } from './list-query';
import { formFields } from './form-fields';
import { actionForm } from './action-form';

export * from './list-query';

type Cell = SafeHtml | string | number | null | undefined;

export interface Column<T> {
  header: string;
  cell: (row: T) => Cell;
  /** Right-aligned tabular figures. */
  num?: boolean;
  /** The sort key this column orders by: a link when the list's spec offers that sort. */
  sortKey?: string;
}

export interface BulkActions<T> {
  /** The form's action URL (POST). */
  action: string;
  csrf: string;
  /** Buttons, each posting `action=<value>` with the checked `ids`. */
  buttons: { value: string; text: string }[];
  id: (row: T) => string;
  /** Names the row for its checkbox (`Select <label>`). */
  rowLabel: (row: T) => string;
  /** Inputs sent with every action (e.g. a note), shown before the buttons. */
  fields?: SafeHtml;
  /** Rows the actions apply to (e.g. only unpaid ones); the others get no checkbox. */
  selectable?: (row: T) => boolean;
}

export interface DataTableOptions<T> {
  /** Names the scrolling region (and the table, as its caption for screen readers). */
  label: string;
  query: ListQuery;
  columns: Column<T>[];
  rows: T[];
  empty: string;
  /** The API's envelope; without it, no pager (a list that fits one page). */
  pagination?: Pagination;
  bulk?: BulkActions<T>;
  /** The record's id as the row's `data-id` (for scripts and tests to find a row). */
  rowId?: (row: T) => string;
}

type Direction = 'ascending' | 'descending';

function orderOf(q: ListQuery): { key: string; direction: Direction } | undefined {
  if (!q.sort) return undefined;
  const descending = q.sort.startsWith('-');
  return { key: q.sort.replace(/^-/, ''), direction: descending ? 'descending' : 'ascending' };
}

function header<T>(column: Column<T>, q: ListQuery): SafeHtml {
  const order = orderOf(q);
  const current = order && column.sortKey === order.key ? order.direction : undefined;
  const cls = column.num ? 'num' : undefined;
  const sortable = column.sortKey !== undefined && (q.spec.sorts ?? []).includes(column.sortKey);
  if (!sortable) {
    return html`<th scope="col" class="${cls}" ${current ? html`aria-sort="${current}"` : ''}>
      ${column.header}
    </th>`;
  }
  // A click on the ordered column flips it; another column starts ascending.
  const next = current === 'ascending' ? `-${column.sortKey}` : column.sortKey!;
  const hint = current
    ? `sorted ${current}; sort ${current === 'ascending' ? 'descending' : 'ascending'}`
    : 'sort ascending';
  return html`<th scope="col" class="${cls}" aria-sort="${current ?? 'none'}">
    <a href="${listHref(q, { sort: next })}"
      >${column.header}<span class="sr"> (${hint})</span
      ><span aria-hidden="true">${current === 'ascending' ? ' ▲' : current ? ' ▼' : ''}</span></a
    >
  </th>`;
}

function cell(value: Cell): SafeHtml | string {
  if (value === null || value === undefined || value === '')
    return html`<span class="muted">—</span>`;
  return value instanceof SafeHtml ? value : String(value);
}

/** Page X of Y with previous/next links that keep the list's filters and sort. */
export function pager(q: ListQuery, pagination: Pagination, label: string): SafeHtml {
  const pages = Math.max(1, pagination.total_pages);
  const current = pagination.current_page;
  // A page past the end (an old bookmark) still gets a way back.
  const previous = current > 1 ? Math.min(current - 1, pages) : null;
  const next = current < pages ? current + 1 : null;
  return html`<nav class="pager" aria-label="Pages of ${label}">
    ${previous ? html`<a href="${listHref(q, { page: previous })}" rel="prev">Previous page</a>` : ''}
    <span>Page ${current} of ${pages}</span>
    <span class="muted">(${pagination.total_count} in all)</span>
    ${next ? html`<a href="${listHref(q, { page: next })}" rel="next">Next page</a>` : ''}
  </nav>`;
}

export function dataTable<T>(opts: DataTableOptions<T>): SafeHtml {
  const { columns, rows, query: q, bulk } = opts;
  const width = columns.length + (bulk ? 1 : 0);
  const body = rows.length
    ? rows.map(
        (row) =>
          html`<tr ${opts.rowId ? html`data-id="${opts.rowId(row)}"` : ''}>
            ${
              bulk && (bulk.selectable?.(row) ?? true)
                ? html`<td class="select">
                    <input
                      type="checkbox"
                      name="ids"
                      value="${bulk.id(row)}"
                      aria-label="Select ${bulk.rowLabel(row)}"
                    />
                  </td>`
                : bulk
                  ? html`<td class="select"></td>`
                  : ''
            }
            ${columns.map((c) => html`<td class="${c.num ? 'num' : undefined}">${cell(c.cell(row))}</td>`)}
          </tr>`,
      )
    : html`<tr>
        <td colspan="${width}">${opts.empty}</td>
      </tr>`;
  const table = html`<div class="table" tabindex="0" role="region" aria-label="${opts.label}">
    <table>
      <caption class="sr">
        ${opts.label}
      </caption>
      <thead>
        <tr>
          ${bulk ? html`<th scope="col" class="select"><span class="sr">Select</span></th>` : ''}
          ${columns.map((c) => header(c, q))}
        </tr>
      </thead>
      <tbody>
        ${body}
      </tbody>
    </table>
  </div>`;
  const paging = opts.pagination ? pager(q, opts.pagination, opts.label) : '';
  if (!bulk) return html`${table}${paging}`;
  return html`<form method="post" action="${bulk.action}" class="bulk-form">
      ${formFields(bulk.csrf)} ${stateInputs(q)} ${table}
      <div class="bulk" role="group" aria-label="With the selected rows">
        ${bulk.fields ?? ''}
        ${bulk.buttons.map(
          (b) => html`<button type="submit" name="action" value="${b.value}">${b.text}</button>`,
        )}
      </div>
    </form>
    ${paging}`;
}

/**
 * A row's own action inside a bulk table: a button of the surrounding form posting to `url`
 * (the form already carries `_csrf` and the list's state). `label` names the row for screen
 * readers (`Approve <span class="sr">Jane Doe</span>`).
 */
export function rowAction(url: string, text: string, label: string): SafeHtml {
  return html`<button type="submit" class="secondary" formaction="${url}">
    ${text} <span class="sr">${label}</span>
  </button>`;
}

/**
 * A row's own action in a table without bulk actions: a small form of its own with the CSRF
 * token and the list's state (so the redirect returns to the same page).
 */
export function rowForm(
  url: string,
  text: string,
  label: string,
  csrf: string,
  q: ListQuery,
): SafeHtml {
  return actionForm({ action: url, csrf, text, label, hidden: stateInputs(q) });
}
