/**
 * The overview (`/console`): the program to date, the last 30 days with a chart, commissions by
 * state per currency, open reviews and the top affiliates. Every figure is read from what its
 * owner keeps, none counted per view: tracking's visitors, leads and conversions of the merchant
 * (getReferralTotals, one document), the commission service's commission_stats of the merchant
 * (getCommissionTotals, one document), the affiliate service's getProgramStats (its count by
 * state and the top affiliates by stored conversions), web's daily readings of those totals
 * (./program-history.ts) for the window, and the review queue's count from the referrals list
 * (`total_count` of `review_state=open`).
 */
import express, { type Router } from 'express';
import { formatMoney } from '@aff/api';
import { OPERATIONS, type AffiliateView, type ProgramStats } from '@aff/contracts';
import { html, type SafeHtml } from '../portal/html';
import { chart } from './components/chart';
import { dataTable, readListQuery, type Column } from './components/data-table';
import { consoleCalls } from './console-data';
import { consolePage } from './console-http';
import type { PageDeps } from './console-pages';
import { windowFigures, type WindowFigures } from './overview-figures';
import { HistoryBackfill } from './history-backfill';
import { WINDOW_DAYS, dayOf, totalsOf, type Totals } from './program-history';

const TOP = 5;
const SERIES = [
  { name: 'Visitors', colour: '#0b57d0' },
  { name: 'Leads', colour: '#7c3aed' },
  { name: 'Conversions', colour: '#c2410c' },
];

export function overviewRoutes({ rpc, history, log }: PageDeps): Router {
  const router = express.Router();
  const backfill = new HistoryBackfill(history, log);
  router.get('/console', async (_req, res) => {
    const calls = consoleCalls(rpc, res);
    // The readings are read beside the owners' figures, not after them: a day's reading is
    // written once, so a view only writes (and reads again) when today's is missing, or when
    // the merchant's one backfill of derived readings runs (./history-backfill.ts).
    const [referrals, commissions, stats, reviews, read] = await Promise.all([
      calls.internal(OPERATIONS.getReferralTotals, {}),
      calls.internal(OPERATIONS.getCommissionTotals, {}),
      calls.internal(OPERATIONS.getProgramStats, { top: TOP }),
      calls.call('listReferrals', { query: { review_state: 'open', limit: '1' } }),
      history.readWindow(calls.merchantId),
    ]);
    const now = totalsOf(referrals, commissions);
    const today = dayOf(new Date());
    let days = read.readings;
    const writes = await Promise.all([
      !days.some((d) => d.day === today) && history.record(calls.merchantId, now).then(() => true),
      !read.backfilled && days.length < WINDOW_DAYS && backfill.run(calls, today),
    ]);
    if (writes.some(Boolean)) days = await history.window(calls.merchantId);
    const window = windowFigures(days, now, today);
    const body = overviewBody(now, stats, window, reviews.pagination.total_count);
    consolePage(res, 200, 'Overview', body);
  });
  return router;
}

const stat = (label: string | SafeHtml, value: number | string, key: string) =>
  html`<div>
    <dt>${label}</dt>
    <dd data-stat="${key}">${value}</dd>
  </div>`;

function overviewBody(
  totals: Totals,
  stats: ProgramStats,
  window: WindowFigures,
  openReviews: number,
): SafeHtml {
  const currencies = Object.entries(totals.commission_stats.currencies);
  return html`<section aria-labelledby="total-h">
      <h2 id="total-h">Program to date</h2>
      <dl class="stats">
        ${stat('Active affiliates', stats.affiliates.active, 'affiliates')}
        ${stat('Visitors', totals.visitors, 'visitors')} ${stat('Leads', totals.leads, 'leads')}
        ${stat('Conversions', totals.conversions, 'conversions')}
        ${stat(html`<a href="/console/reviews">Open reviews</a>`, openReviews, 'open-reviews')}
      </dl>
    </section>
    <section aria-labelledby="window-h">
      <h2 id="window-h">Last 30 days</h2>
      ${
        window.since === null
          ? html`<p class="muted">
              The console keeps one reading of the program's totals a day; history starts today, so
              the figures for the last 30 days appear from tomorrow.
            </p>`
          : html`<p class="muted">
                Since ${window.since}
                ${
                  window.money_since === window.since
                    ? '(the oldest daily reading in the window).'
                    : '(days before the first daily reading are counted from the referrals).'
                }
              </p>
              <dl class="stats">
                ${stat('Visitors', window.visitors, 'window-visitors')}
                ${stat('Leads', window.leads, 'window-leads')}
                ${stat('Conversions', window.conversions, 'window-conversions')}
              </dl>
              ${chart({
                id: 'window',
                title: 'Visitors, leads and conversions per day, last 30 days',
                series: SERIES,
                points: window.days,
              })}
              ${moneySince(window)}
              ${
                window.money_since !== null &&
                moneyTable(
                  'Revenue and commissions, last 30 days',
                  ['Gross revenue', 'Net revenue', 'Commissions earned', 'Commissions paid'],
                  window.currencies.map((c) => [
                    c.currency,
                    [c.gross_revenue, c.net_revenue, c.earned, c.paid],
                  ]),
                )
              }`
      }
    </section>
    <section aria-labelledby="state-h">
      <h2 id="state-h">Commissions by state and revenue, to date</h2>
      ${moneyTable(
        'Commissions by state per currency',
        ['Pending', 'Due', 'Paid', 'Total', 'Gross revenue', 'Net revenue'],
        currencies.map(([currency, s]) => [
          currency,
          [
            s.unpaid.cents - s.due.cents,
            s.due.cents,
            s.paid.cents,
            s.total.cents,
            s.gross_revenue.cents,
            s.net_revenue.cents,
          ],
        ]),
      )}
    </section>
    <section aria-labelledby="top-h">
      <h2 id="top-h">Top affiliates</h2>
      ${topTable(stats.top_affiliates)}
    </section>`;
}

/** Where the window's money starts, when older days have derived readings only. */
function moneySince({ since, money_since }: WindowFigures): SafeHtml | '' {
  if (money_since === since) return '';
  return money_since === null
    ? html`<p class="muted" data-window="money-since">
        Revenue and commissions for the last 30 days appear from tomorrow: the first daily reading
        is today's, and the money of the days before it cannot be recovered.
      </p>`
    : html`<p class="muted" data-window="money-since">
        Revenue and commissions: since ${money_since} (the first daily reading; the money of the
        days before it cannot be recovered).
      </p>`;
}

function moneyTable(label: string, headers: string[], rows: [string, number[]][]): SafeHtml {
  if (rows.length === 0) return html`<p class="muted">No commissions or sales yet.</p>`;
  return html`<div class="table" tabindex="0" role="region" aria-label="${label}">
    <table>
      <caption class="sr">
        ${label}
      </caption>
      <thead>
        <tr>
          <th scope="col">Currency</th>
          ${headers.map((h) => html`<th scope="col" class="num">${h}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          ([currency, values]) =>
            html`<tr data-currency="${currency}">
              <th scope="row">${currency}</th>
              ${values.map((v) => html`<td class="num">${formatMoney(v, currency)}</td>`)}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

// The operation's one order: most conversions first (marked with aria-sort, not a link).
const TOP_LIST = { path: '/console', filters: {}, fixedOrder: '-conversions' };

function topTable(affiliates: AffiliateView[]): SafeHtml {
  const earned = (a: AffiliateView) =>
    Object.entries(a.commission_stats?.currencies ?? {})
      .map(([currency, s]) => formatMoney(s.total.cents, currency))
      .join(', ');
  const columns: Column<AffiliateView>[] = [
    {
      header: 'Affiliate',
      cell: (a) => html`<a href="/console/affiliates/${a.id}">${a.first_name} ${a.last_name}</a>`,
    },
    { header: 'Conversions', num: true, sortKey: 'conversions', cell: (a) => a.conversions },
    { header: 'Leads', num: true, cell: (a) => a.leads },
    { header: 'Visitors', num: true, cell: (a) => a.visitors },
    { header: 'Commissions earned', cell: earned },
  ];
  return dataTable({
    label: 'Top affiliates by conversions',
    query: readListQuery(TOP_LIST, {}),
    columns,
    rows: affiliates,
    empty: 'No affiliates yet.',
  });
}
