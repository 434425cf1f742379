/**
 * The console's pages against the REST lists they show (issue 31, item 6): one merchant with
 * many affiliates and referrals (console-seed.ts), an owner signed in by the link
 * `console:invite --json` prints, then for each page N warm requests through the gateway with
 * the session cookie, each followed by the REST call(s) the page makes for the same data with
 * the merchant's secret (in parallel where the page makes them in parallel). Requests are one at
 * a time and alternate page / REST, so both see the same machine. Median and p95 of each, and
 * the page's median as a ratio to REST's: what the console adds (a hop through the web service
 * and rendering) on top of the data.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { formatDbCosts, type DbCost, type DbTimeMeter } from './console-db-time';
import type { BenchMerchant } from './money-bench';

export interface PagePair {
  name: string;
  page: string;
  /**
   * The REST requests the page's data comes from, in the page's order: steps one after the
   * other, the requests of a step together.
   */
  rest: string[][];
  /** What the REST side leaves out, when it is not the same data. */
  note?: string;
  /** The status both sides must answer (200 unless said). */
  status?: number;
}

export interface PageFigures extends PagePair {
  pageMs: { median: number; p95: number };
  restMs: { median: number; p95: number };
  ratio: number;
  failed: string[];
  /** The database commands that took the most time per round (page + REST), when measured. */
  db?: DbCost[];
}

const NAME_SEARCH = 'ada1';

/**
 * The console pages on main, each with the REST list(s) it reads (services/web/src/console);
 * the detail pages show `affiliateId` (one with history) and `campaignId`.
 */
export function consolePages(affiliateId: string, campaignId: string): PagePair[] {
  const recent = `affiliate_id=${affiliateId}&limit=10`;
  return [
    {
      name: 'overview',
      page: '/console',
      rest: [['/v1/referrals?review_state=open&limit=1']],
      note: 'its program figures come from the internal getReferralTotals and getProgramStats, which no REST list has',
    },
    { name: 'affiliates', page: '/console/affiliates', rest: [['/v1/affiliates?limit=25']] },
    {
      name: `affiliates, name search "${NAME_SEARCH}"`,
      page: `/console/affiliates?q=${NAME_SEARCH}`,
      rest: [['/v1/affiliates?limit=25']],
      note: 'the REST list has no name filter: compared with the unfiltered list',
    },
    {
      name: 'affiliate detail',
      page: `/console/affiliates/${affiliateId}`,
      rest: [
        [`/v1/affiliates/${affiliateId}`],
        [
          `/v1/referrals?${recent}`,
          `/v1/referrals?${recent}&flagged=true`,
          `/v1/commissions?${recent}`,
          `/v1/payouts?${recent}`,
        ],
      ],
    },
    {
      name: 'referrals',
      page: '/console/referrals',
      rest: [['/v1/referrals?limit=25&expand[]=affiliate']],
    },
    {
      name: 'review queue',
      page: '/console/reviews',
      rest: [['/v1/referrals?review_state=open&limit=25&expand[]=affiliate']],
    },
    {
      name: 'commissions',
      page: '/console/commissions',
      rest: [['/v1/commissions?limit=25&expand[]=sale']],
    },
    {
      name: 'payouts',
      page: '/console/payouts',
      rest: [['/v1/payouts?limit=25&expand[]=affiliate']],
      note: 'the page also reads the internal payoutTotals',
    },
    {
      name: 'payout exports',
      page: '/console/payouts/exports',
      rest: [['/v1/payout_exports?limit=25']],
    },
    { name: 'webhooks', page: '/console/webhooks', rest: [['/v1/webhook_endpoints?limit=25']] },
    { name: 'campaigns', page: '/console/campaigns', rest: [['/v1/campaigns?limit=25']] },
    {
      name: 'campaign',
      page: `/console/campaigns/${campaignId}`,
      rest: [[`/v1/campaigns/${campaignId}`]],
    },
    HOP_ALONE,
  ];
}

/**
 * The hop every page adds and no REST call has, with no data on either side: a signed-in page
 * that reads nothing from an owner (the console's 404) against an authenticated REST request
 * that reaches no service (the gateway's 404). Both pass the gateway's rate limit; the page's
 * side adds the request to web over NATS and back, the session look-up and the rendering.
 */
export const HOP_ALONE: PagePair = {
  name: 'the hop alone',
  page: '/console/bench-no-such-page',
  rest: [['/v1/bench_no_such_list']],
  note: 'both 404: no owner service is asked on either side',
  status: 404,
};

/** An owner of the merchant signed in through `console:invite --json`'s link: the cookie. */
export async function signInOwner(
  root: string,
  infra: { mongoUrl: string; natsUrl: string },
  gatewayUrl: string,
  merchant: BenchMerchant,
): Promise<string> {
  const out = execFileSync(
    process.execPath,
    [
      path.join(root, 'services/gateway/dist/ops/cli.js'),
      'console:invite',
      '--merchant',
      merchant.merchant_id,
      '--email',
      `owner-${Date.now()}@example.com`,
      '--role',
      'owner',
      '--json',
    ],
    {
      env: { ...process.env, MONGO_URL: infra.mongoUrl, NATS_URL: infra.natsUrl },
      encoding: 'utf8',
    },
  );
  const { sign_in_url: url } = JSON.parse(out) as { sign_in_url: string };
  // The link names the platform's public address; the bench's gateway answers the same path.
  const res = await fetch(`${gatewayUrl}${url.slice(url.indexOf('/console/'))}`, {
    redirect: 'manual',
  });
  const cookie = res.headers.getSetCookie()[0]?.split(';')[0];
  if (res.status !== 303 || !cookie) throw new Error(`console sign-in: ${res.status}`);
  return cookie;
}

export async function benchConsolePages(
  gatewayUrl: string,
  merchant: BenchMerchant,
  cookie: string,
  pages: PagePair[],
  opts: {
    requests: number;
    warmup?: number;
    log?: (line: string) => void;
    /** Attributes each page's database time (the services' command statistics). */
    dbTime?: DbTimeMeter;
  },
): Promise<PageFigures[]> {
  const auth = `Basic ${Buffer.from(`${merchant.api_secret}:`).toString('base64')}`;
  const figures: PageFigures[] = [];
  for (const pair of pages) {
    const failed: string[] = [];
    const timed = async (steps: string[][], headers: Record<string, string>) => {
      const started = performance.now();
      for (const urls of steps) {
        await Promise.all(
          urls.map(async (url) => {
            const res = await fetch(`${gatewayUrl}${url}`, { headers, redirect: 'manual' });
            await res.arrayBuffer();
            if (res.status !== (pair.status ?? 200)) failed.push(`${url}: ${res.status}`);
          }),
        );
      }
      return performance.now() - started;
    };
    const page: number[] = [];
    const rest: number[] = [];
    const warmup = opts.warmup ?? 5;
    const window = await opts.dbTime?.start();
    for (let i = 0; i < warmup + opts.requests; i++) {
      const p = await timed([[pair.page]], { cookie });
      const r = await timed(pair.rest, { authorization: auth });
      if (i < warmup) continue;
      page.push(p);
      rest.push(r);
    }
    const db = await window?.end(warmup + opts.requests);
    const pageMs = stats(page);
    const restMs = stats(rest);
    figures.push({
      ...pair,
      pageMs,
      restMs,
      ratio: pageMs.median / restMs.median,
      failed: [...new Set(failed)],
      ...(db ? { db } : {}),
    });
    opts.log?.(
      `  ${pair.name}: page ${pageMs.median} ms, REST ${restMs.median} ms (medians), ${failed.length} failed${db ? `; database per round: ${formatDbCosts(db)}` : ''}`,
    );
  }
  return figures;
}

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  return { median: round(at(0.5)), p95: round(at(0.95)) };
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/**
 * The console's own cost on a page whose list is empty (webhooks: no endpoint is seeded): page
 * median minus REST median, i.e. the hop gateway → web → owner service, the session look-up and
 * the rendering, with no data. A ratio above 1 is that much at least.
 */
export function webHopMs(figures: PageFigures[]): number | null {
  const empty = figures.find((f) => f.name === 'webhooks');
  return empty ? round(empty.pageMs.median - empty.restMs.median) : null;
}

/** Page − REST of "the hop alone" (HOP_ALONE), when measured. */
export function hopAloneMs(figures: PageFigures[]): number | null {
  const alone = figures.find((f) => f.name === HOP_ALONE.name);
  return alone ? round(alone.pageMs.median - alone.restMs.median) : null;
}

/** The lowest ratio a page can have when it costs its REST list plus the hop. */
export const hopFloor = (hopMs: number, restMs: number) =>
  restMs > 0 ? (1 + Math.max(0, hopMs) / restMs).toFixed(2) : '';

export function formatConsolePages(figures: PageFigures[]): string {
  const lines = [
    '| page | page median (p95) ms | REST median (p95) ms | page / REST | page − REST ms | the hop allows (1 + hop / REST) | REST request(s) | failed | database time per round (page + REST), top 3 |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  const hopMs = hopAloneMs(figures);
  // Ids shown as `:id`: the table names routes.
  const short = (url: string) => url.replace(/[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}/g, ':id');
  for (const f of figures) {
    lines.push(
      `| ${f.name} \`${short(f.page)}\` | ${f.pageMs.median} (${f.pageMs.p95}) | ${f.restMs.median} (${f.restMs.p95}) | ${f.ratio.toFixed(2)} | ${round(f.pageMs.median - f.restMs.median)} | ${hopMs === null || f.name === HOP_ALONE.name ? '' : hopFloor(hopMs, f.restMs.median)} | ${f.rest.map((step) => step.map((r) => `\`${short(r)}\``).join(' + ')).join(', then ')}${f.note ? ` (${f.note})` : ''} | ${f.failed.length ? f.failed.join('; ') : 'none'} | ${f.db ? formatDbCosts(f.db) : ''} |`,
    );
  }
  const hop = webHopMs(figures);
  if (hop !== null)
    lines.push(
      '',
      `The web hop measured on an empty page (webhooks, no endpoint): page − REST = ${hop} ms (gateway → web → owner service, session look-up, rendering, no data); a page's "page − REST" near it is that hop alone.`,
    );
  if (hopMs !== null)
    lines.push(
      '',
      `The hop alone (a signed-in console 404 against an authenticated REST 404, no owner service on either side): page − REST = ${hopMs} ms: the request to web over NATS and back, the session look-up and the rendering. Every page pays it on top of its REST list; a list that takes t ms through REST has a ratio of at least 1 + hop / t (the column "the hop allows").`,
    );
  return lines.join('\n');
}
