/** Small pieces the portal pages share: money, dates, state badges, tables, pagers. */
import { formatMoney } from '@aff/api';
import type { CommissionView, Pagination, PayoutView, ReferralView } from '@aff/contracts';
import { html, type SafeHtml } from './html';
import { maskEmail } from './portal-summary';

export const money = (cents: number, currency: string) => formatMoney(cents, currency);

export const date = (iso: string | null | undefined) =>
  iso
    ? html`<time datetime="${iso}">${iso.slice(0, 10)}</time>`
    : html`<span class="muted">—</span>`;

export const state = (text: string) => html`<span class="state">${text}</span>`;

/** An affiliate's visitors, leads and conversions (the portal's dashboard, the console's page). */
export const referralCounts = (a: { visitors: number; leads: number; conversions: number }) =>
  html`<dl class="stats">
    <div>
      <dt>Visitors</dt>
      <dd data-stat="visitors">${a.visitors}</dd>
    </div>
    <div>
      <dt>Leads</dt>
      <dd data-stat="leads">${a.leads}</dd>
    </div>
    <div>
      <dt>Conversions</dt>
      <dd data-stat="conversions">${a.conversions}</dd>
    </div>
  </dl>`;

/**
 * `label` names the scroll container: on a narrow screen the table scrolls sideways inside it,
 * and a keyboard user reaches that only if the container is focusable (axe
 * `scrollable-region-focusable`), which in turn needs a role and a name for screen readers.
 */
export function table(
  headers: (string | { text: string; num: true })[],
  rows: SafeHtml[],
  empty: string,
  label: string,
) {
  if (rows.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<div class="table" tabindex="0" role="region" aria-label="${label}">
    <table>
      <thead>
        <tr>
          ${headers.map((h) =>
            typeof h === 'string'
              ? html`<th scope="col">${h}</th>`
              : html`<th scope="col" class="num">${h.text}</th>`,
          )}
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </div>`;
}

export const referralRow = (r: ReferralView) =>
  html`<tr>
    <td>${date(r.created_at)}</td>
    <td>${state(r.conversion_state)}</td>
    <td>${r.link?.token ?? '—'}</td>
    <td class="num">${r.visits}</td>
    <td>${r.customer?.email ? maskEmail(r.customer.email) : html`<span class="muted">—</span>`}</td>
  </tr>`;
export const REFERRAL_HEADERS = [
  'Started',
  'State',
  'Link',
  { text: 'Visits', num: true } as const,
  'Customer',
];

export const commissionRow = (c: CommissionView) =>
  html`<tr>
    <td><a href="/portal/commissions/${c.id}">${date(c.created_at)}</a></td>
    <td>${state(c.state)}</td>
    <td class="num">${money(c.amount, c.currency)}</td>
    <td>${date(c.due_at)}</td>
    <td>${date(c.paid_at)}</td>
  </tr>`;
export const COMMISSION_HEADERS = [
  'Created',
  'State',
  { text: 'Amount', num: true } as const,
  'Due',
  'Paid',
];

export const payoutRow = (p: PayoutView) =>
  html`<tr>
    <td><a href="/portal/payouts/${p.id}">${date(p.created_at)}</a></td>
    <td>${state(p.state)}</td>
    <td class="num">${money(p.amount, p.currency)}</td>
    <td>${date(p.paid_at)}</td>
  </tr>`;
export const PAYOUT_HEADERS = ['Created', 'State', { text: 'Amount', num: true } as const, 'Paid'];

/** Previous/next links that keep the other query parameters (a state filter). */
export function pager(path: string, pagination: Pagination, keep: Record<string, string> = {}) {
  const link = (page: number, label: string, rel: string) => {
    const params = new URLSearchParams({ ...keep, page: String(page) });
    return html`<a href="${path}?${params.toString()}" rel="${rel}">${label}</a>`;
  };
  return html`<nav class="pager" aria-label="Pages">
    ${pagination.previous_page ? link(pagination.previous_page, 'Newer', 'prev') : ''}
    <span class="muted"
      >Page ${pagination.current_page} of ${Math.max(1, pagination.total_pages)}
      (${pagination.total_count} in all)</span
    >
    ${pagination.next_page ? link(pagination.next_page, 'Older', 'next') : ''}
  </nav>`;
}
