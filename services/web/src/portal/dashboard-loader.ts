/** Gathers the dashboard's figures from the services, in parallel. */
import type { DashboardModel } from './dashboard-page';
import type { PortalData } from './portal-data';
import { commissionTotals, dailyActivity } from './portal-summary';

const RECENT = 10;
const CHART_DAYS = 30;

export async function loadDashboard(
  data: PortalData,
  csrf: string,
  now: Date = new Date(),
): Promise<DashboardModel> {
  const since = new Date(now.getTime() - CHART_DAYS * 86_400_000).toISOString();
  const [affiliate, commissions, referrals, recentReferrals, payouts] = await Promise.all([
    data.affiliate(),
    data.all(data.commissions),
    // Referrals touched in the window include every one that started or converted in it.
    data.all(data.referrals, { updated_since: since }),
    data.referrals({ limit: String(RECENT) }),
    data.payouts({ limit: String(RECENT) }),
  ]);
  return {
    affiliate,
    activity: dailyActivity(referrals.items, now, CHART_DAYS),
    totals: commissionTotals(commissions.items),
    totalsComplete: commissions.complete,
    recentCommissions: commissions.items.slice(0, RECENT),
    commissionCount: commissions.items.length,
    recentReferrals: recentReferrals.data,
    referralCount: recentReferrals.pagination.total_count,
    recentPayouts: payouts.data,
    payoutCount: payouts.pagination.total_count,
    csrf,
  };
}
