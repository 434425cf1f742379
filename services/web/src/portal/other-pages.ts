/** Bodies of the portal's list, detail and message pages. */
import type { CommissionView, Paginated, PayoutView, ReferralView } from '@aff/contracts';
import { html, type SafeHtml } from './html';
import {
  COMMISSION_HEADERS,
  PAYOUT_HEADERS,
  REFERRAL_HEADERS,
  commissionRow,
  date,
  money,
  pager,
  payoutRow,
  referralRow,
  state,
  table,
} from './page-parts';

const back = html`<p><a href="/portal">Back to the dashboard</a></p>`;

export function referralsBody(list: Paginated<ReferralView>): SafeHtml {
  return html`<section aria-labelledby="h">
    <h2 id="h">Referrals</h2>
    ${table(REFERRAL_HEADERS, list.data.map(referralRow), 'No referrals.', 'Referrals')}
    ${pager('/portal/referrals', list.pagination)}${back}
  </section>`;
}

export function commissionsBody(list: Paginated<CommissionView>, filter: string): SafeHtml {
  const keep: Record<string, string> = filter ? { state: filter } : {};
  return html`<section aria-labelledby="h">
    <h2 id="h">Commissions${filter ? ` (${filter})` : ''}</h2>
    <p>
      ${['', 'pending', 'due', 'paid', 'voided'].map((s) =>
        s === filter
          ? html`<strong>${s || 'all'}</strong> `
          : html`<a href="/portal/commissions${s ? `?state=${s}` : ''}">${s || 'all'}</a> `,
      )}
    </p>
    ${table(COMMISSION_HEADERS, list.data.map(commissionRow), 'No commissions.', 'Commissions')}
    ${pager('/portal/commissions', list.pagination, keep)}${back}
  </section>`;
}

export function payoutsBody(list: Paginated<PayoutView>): SafeHtml {
  return html`<section aria-labelledby="h">
    <h2 id="h">Payouts</h2>
    ${table(PAYOUT_HEADERS, list.data.map(payoutRow), 'No payouts.', 'Payouts')}
    ${pager('/portal/payouts', list.pagination)}${back}
  </section>`;
}

export function payoutBody(p: PayoutView): SafeHtml {
  return html`<section aria-labelledby="h">
    <h2 id="h">Payout of ${money(p.amount, p.currency)}</h2>
    <p>${state(p.state)} · created ${date(p.created_at)} · paid ${date(p.paid_at)}</p>
    <h3>Commissions in this payout</h3>
    ${table(
      ['Created', 'State', { text: 'Amount', num: true }, 'Due'],
      (p.commissions ?? []).map(
        (c) =>
          html`<tr>
            <td>${date(c.created_at)}</td>
            <td>${state(c.state ?? '')}</td>
            <td class="num">${money(c.amount, c.currency)}</td>
            <td>${date(c.due_at)}</td>
          </tr>`,
      ),
      'No commissions.',
      'Commissions in this payout',
    )}${back}
  </section>`;
}

export function commissionBody(c: CommissionView): SafeHtml {
  const sale = c.sale;
  return html`<section aria-labelledby="h">
    <h2 id="h">Commission of ${money(c.amount, c.currency)}</h2>
    <dl>
      <dt>State</dt>
      <dd>${state(c.state)}</dd>
      <dt>Created</dt>
      <dd>${date(c.created_at)}</dd>
      <dt>Due</dt>
      <dd>${date(c.due_at)}</dd>
      <dt>Paid</dt>
      <dd>${date(c.paid_at)}</dd>
      ${
        sale
          ? html`<dt>Sale</dt>
              <dd>${money(sale.sale_amount_cents, sale.currency)} on ${date(sale.charged_at)}</dd>`
          : ''
      }
    </dl>
    ${back}
  </section>`;
}

/** A page that only says something (errors, confirmations); `action` is the way forward. */
export function messageBody(title: string, message: string, action?: SafeHtml): SafeHtml {
  return html`<section aria-labelledby="h">
    <h2 id="h">${title}</h2>
    <p>${message}</p>
    ${action ?? ''}
  </section>`;
}
