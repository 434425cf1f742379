/**
 * The overview's one backfill of derived readings when tracking cannot answer it, through web's
 * real entry point (the kernel starts web from its definition; pages come over `renderPage`, as
 * the gateway forwards them) on a NATS server of its own. The test plays web's neighbours: the
 * owners' figures the overview reads, and tracking's getReferralHistory, absent (a tracking that
 * is down or older than the operation) or too slow. The page renders either way, stores no
 * marker, and the backfill runs on a later view once tracking answers; after a timeout that
 * merchant is not asked again for a while.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import {
  OPERATIONS,
  rpcSubject,
  type ReferralHistory,
  type RpcReply,
  type ServiceName,
} from '@aff/contracts';
import { RpcClient, callInternal, decodeJson, encodeJson } from '@aff/messaging';
import { connectMongo } from '@aff/mongo';
import { webService } from '../src/service';
import { startComponent, type Component } from '../../../test/support/component';

const RPC_TIMEOUT_MS = 1_500;
let component: Component<unknown>;
let rpc: RpcClient;
/** Per merchant: how the played tracking answers getReferralHistory, and how often it was asked. */
const history = new Map<string, 'slow' | ReferralHistory>();
const asked = new Map<string, number>();

const day = (offset: number) =>
  new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const midnight = (offset: number) => new Date(`${day(offset)}T00:00:00Z`).toISOString();

/** Answers `rpc.<service>.<operation>` as its owner would (`{status, body}`). */
function answer(service: ServiceName, operation: string, body: (input: any) => Promise<unknown>) {
  component.nc.subscribe(rpcSubject(service, operation), {
    callback: (_error, msg) => {
      void body(decodeJson(msg.data)).then((reply) =>
        msg.respond(encodeJson({ status: 200, body: reply } satisfies RpcReply)),
      );
    },
  });
}

beforeAll(async () => {
  component = await startComponent(webService, {
    RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS),
    MAIL_OUTBOX_DIR: path.join(os.tmpdir(), `web-outbox-${randomUUID()}`),
  });
  rpc = new RpcClient(component.nc, 10_000);
  answer('tracking', 'getReferralTotals', async () => ({ visitors: 5, leads: 2, conversions: 1 }));
  answer('commission', 'getCommissionTotals', async () => ({
    commission_stats: { currencies: {} },
  }));
  answer('affiliate', 'getProgramStats', async () => ({
    affiliates: { active: 1, disabled: 0, suspicious: 0 },
    top_affiliates: [],
  }));
  answer('tracking', 'listReferrals', async () => ({
    data: [],
    pagination: { total_count: 0 },
  }));
});
afterAll(async () => {
  await component?.stop();
});

/** Serves getReferralHistory from now on (until then nobody answers it: tracking is "down"). */
let serving = false;
function serveHistory() {
  if (serving) return;
  serving = true;
  answer('tracking', 'getReferralHistory', async ({ merchant_id }: { merchant_id: string }) => {
    asked.set(merchant_id, (asked.get(merchant_id) ?? 0) + 1);
    const found = history.get(merchant_id);
    if (found === 'slow') await new Promise((resolve) => setTimeout(resolve, RPC_TIMEOUT_MS * 2));
    return found === 'slow' || !found ? { midnights: [] } : found;
  });
}

/** A signed-in owner of a new merchant, and a way to view its overview. */
async function owner() {
  const merchantId = randomUUID();
  const invited = await callInternal(
    rpc,
    OPERATIONS.inviteConsoleUser,
    { merchant_id: merchantId, email: `bf-${randomUUID()}@example.com`, role: 'owner' },
    randomUUID(),
  );
  const link = new URL(invited.sign_in_url);
  const page = (p: string, query = '', cookie?: string) =>
    callInternal(
      rpc,
      OPERATIONS.renderPage,
      { method: 'GET', path: p, query, headers: cookie ? { cookie } : {} },
      randomUUID(),
    );
  const signIn = await page(link.pathname, link.search.slice(1));
  expect(signIn.status).toBe(303);
  const cookie = String([signIn.headers['set-cookie']].flat()[0]).split(';')[0]!;
  return { merchantId, view: () => page('/console', '', cookie) };
}

async function markerOf(merchantId: string) {
  const mongo = await connectMongo(process.env.MONGO_URL!, component.mongoDb);
  try {
    return await mongo
      .collection('console_stat_days')
      .findOne({ _id: `${merchantId}:backfill` as never });
  } finally {
    await mongo.close();
  }
}

it('renders the overview while tracking does not answer the backfill; backfills on a later view', async () => {
  const { merchantId, view } = await owner();
  const first = await view();
  expect(first.status).toBe(200);
  expect(first.body).toContain('Program to date');
  expect(first.body).toContain('history starts today');
  expect(await markerOf(merchantId)).toBeNull();

  // Tracking answers now: referrals since four days ago (two visitors at the midnights after).
  serveHistory();
  history.set(merchantId, {
    midnights: Array.from({ length: 30 }, (_, i) => {
      const back = 29 - i;
      const visitors = back <= 3 ? 2 : 0;
      return { at: midnight(-back), visitors, leads: 0, conversions: 0 };
    }),
  });
  const later = await view();
  expect(later.status).toBe(200);
  expect(asked.get(merchantId)).toBe(1);
  expect(later.body).toContain(`Since ${day(-4)}`);
  expect(later.body).toContain(`<title>${day(-4)}: 2 visitors, 0 leads, 0 conversions</title>`);
  // No real reading before today: the money of the window starts tomorrow.
  expect(later.body).toContain('Revenue and commissions for the last 30 days appear from tomorrow');
  expect(await markerOf(merchantId)).not.toBeNull();
  await view();
  expect(asked.get(merchantId)).toBe(1);
});

it('renders the overview when the backfill times out, and does not ask again at once', async () => {
  serveHistory();
  const { merchantId, view } = await owner();
  history.set(merchantId, 'slow');
  const first = await view();
  expect(first.status).toBe(200);
  expect(first.body).toContain('history starts today');
  expect(asked.get(merchantId)).toBe(1);
  expect(await markerOf(merchantId)).toBeNull();
  const again = await view();
  expect(again.status).toBe(200);
  expect(asked.get(merchantId)).toBe(1);
});
