/** The dashboard: counters, chart, links, commissions, referrals, payouts and settings. */
import type { AffiliateView, CommissionView, PayoutView, ReferralView } from '@aff/contracts';
import { activityChart } from './activity-chart';
import { html, type SafeHtml } from './html';
import {
  COMMISSION_HEADERS,
  PAYOUT_HEADERS,
  REFERRAL_HEADERS,
  commissionRow,
  money,
  payoutRow,
  referralCounts,
  referralRow,
  table,
} from './page-parts';
import { COMMISSION_COLUMNS, type CurrencyTotals, type DayActivity } from './portal-summary';

export interface DashboardModel {
  affiliate: AffiliateView;
  activity: DayActivity[];
  totals: CurrencyTotals[];
  totalsComplete: boolean;
  recentCommissions: CommissionView[];
  commissionCount: number;
  recentReferrals: ReferralView[];
  referralCount: number;
  recentPayouts: PayoutView[];
  payoutCount: number;
  csrf: string;
  notice?: string | undefined;
  formErrors?: string[] | undefined;
}

export function dashboardBody(m: DashboardModel): SafeHtml {
  const a = m.affiliate;
  return html` ${m.notice ? html`<p class="notice" role="status">${m.notice}</p>` : ''}
    <section aria-labelledby="overview-h">
      <h2 id="overview-h">Welcome, ${a.first_name} ${a.last_name}</h2>
      ${referralCounts(a)}
    </section>

    <section aria-labelledby="activity-h">
      <h2 id="activity-h">Last 30 days</h2>
      ${activityChart(m.activity)}
    </section>

    <section aria-labelledby="links-h">
      <h2 id="links-h">Your links</h2>
      ${table(
        [
          'Link',
          { text: 'Visitors', num: true },
          { text: 'Leads', num: true },
          { text: 'Conversions', num: true },
        ],
        (a.links ?? []).map(
          (link, i) =>
            html`<tr>
              <td>
                <div class="copy">
                  <label class="sr" for="link-${i}">Link ${link.token}</label>
                  <input id="link-${i}" type="text" readonly value="${link.url}" />
                  <button
                    type="button"
                    class="secondary"
                    data-copy="link-${i}"
                    aria-label="Copy link ${link.token}"
                  >
                    Copy
                  </button>
                  <span id="link-${i}-status" class="sr" role="status" aria-live="polite"></span>
                </div>
              </td>
              <td class="num">${link.visitors}</td>
              <td class="num">${link.leads}</td>
              <td class="num">${link.conversions}</td>
            </tr>`,
        ),
        'You have no links yet.',
        'Your links',
      )}
    </section>

    <section aria-labelledby="commissions-h">
      <h2 id="commissions-h">Commissions</h2>
      ${table(
        [
          'Currency',
          ...COMMISSION_COLUMNS.map((c) => ({ text: cap(c), num: true as const })),
          { text: 'Earned', num: true },
        ],
        m.totals.map(
          (t) =>
            html`<tr data-currency="${t.currency}">
              <th scope="row">${t.currency}</th>
              ${COMMISSION_COLUMNS.map(
                (c) =>
                  html`<td class="num" data-state="${c}">${money(t.cents[c], t.currency)}</td>`,
              )}
              <td class="num" data-state="earned">${money(t.earned, t.currency)}</td>
            </tr>`,
        ),
        'No commissions yet.',
        'Commissions by currency',
      )}
      ${m.totalsComplete ? '' : html`<p class="muted">Totals cover your most recent 2,000 commissions.</p>`}
      <h3>Latest</h3>
      ${table(COMMISSION_HEADERS, m.recentCommissions.map(commissionRow), 'No commissions yet.', 'Latest commissions')}
      ${m.commissionCount > m.recentCommissions.length ? html`<p><a href="/portal/commissions">All ${m.commissionCount} commissions</a></p>` : ''}
    </section>

    <section aria-labelledby="referrals-h">
      <h2 id="referrals-h">Referrals</h2>
      ${table(REFERRAL_HEADERS, m.recentReferrals.map(referralRow), 'No referrals yet.', 'Latest referrals')}
      ${m.referralCount > m.recentReferrals.length ? html`<p><a href="/portal/referrals">All ${m.referralCount} referrals</a></p>` : ''}
    </section>

    <section aria-labelledby="payouts-h">
      <h2 id="payouts-h">Payouts</h2>
      ${table(PAYOUT_HEADERS, m.recentPayouts.map(payoutRow), 'No payouts yet.', 'Latest payouts')}
      ${m.payoutCount > m.recentPayouts.length ? html`<p><a href="/portal/payouts">All ${m.payoutCount} payouts</a></p>` : ''}
    </section>

    <section aria-labelledby="settings-h">
      <h2 id="settings-h">Settings</h2>
      ${
        m.formErrors?.length
          ? html`<div class="error" role="alert">
              <p>Your changes were not saved:</p>
              <ul>
                ${m.formErrors.map((e) => html`<li>${e}</li>`)}
              </ul>
            </div>`
          : ''
      }
      <form class="settings" method="post" action="/portal/settings">
        <input type="hidden" name="_csrf" value="${m.csrf}" />
        <label for="email">Account e-mail</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="email"
          required
          value="${a.email}"
          aria-describedby="email-help"
        />
        <p id="email-help" class="muted">
          ${
            a.unconfirmed_email
              ? html`Waiting for confirmation of <strong>${a.unconfirmed_email}</strong>: follow the
                  link we mailed there.`
              : 'A new address takes effect once you follow the confirmation link we mail to it.'
          }
        </p>
        ${walletInput(a, 'a')} ${walletInput(a, 'b')}
        <label class="check"
          ><input
            type="checkbox"
            name="receive_new_commission_notifications"
            value="true"
            ${a.receive_new_commission_notifications ? html` checked` : ''}
          />
          E-mail me when I earn a commission</label
        >
        <p><button type="submit">Save settings</button></p>
      </form>
    </section>`;
}

/**
 * The input shows the address payouts go to now; a new one waits for the link mailed to the
 * account e-mail, and is shown as pending until then (docs/portal.md).
 */
function walletInput(a: AffiliateView, w: 'a' | 'b') {
  const id = `wallet_${w}_email` as const;
  const pending = w === 'a' ? a.unconfirmed_wallet_a_email : a.unconfirmed_wallet_b_email;
  return html`<label for="${id}">Wallet ${w.toUpperCase()} e-mail</label>
    <input
      id="${id}"
      name="${id}"
      type="email"
      value="${a[id] ?? ''}"
      aria-describedby="${id}-help"
    />
    <p id="${id}-help" class="muted" data-wallet-pending="${pending ?? ''}">
      ${
        pending
          ? html`<strong>Pending:</strong> ${pending} receives payouts once you follow the link we
              mailed to your account e-mail. Until then payouts go to the address above.`
          : 'A new address takes effect once you follow the link we mail to your account e-mail.'
      }
    </p>`;
}

const cap = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
