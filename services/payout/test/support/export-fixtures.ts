/**
 * Test support for payout exports: plays the affiliate service confirming wallet e-mails (an
 * `affiliate.updated` with `wallet_*_email_confirmed_at` set, as its confirmation link will
 * publish it) and makes due payouts from published commission events.
 */
import { randomUUID } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { STREAMS, buildEvent, eventSubject, type AffiliateView } from '@aff/contracts';
import { EventPublisher } from '@aff/messaging';
import { commissionView, eventually, publishCommissionEvents } from './payout-fixtures';

export const AFFILIATE_CONSUMER = 'payout-affiliates';

export interface WalletSettings {
  /** Wallet A (PayPal): the e-mail and whether it is confirmed. */
  a?: { email: string; confirmed: boolean };
  /** Wallet B (Wise). */
  b?: { email: string; confirmed: boolean };
}

/** Publishes the affiliate with these wallets and waits until the payout service applied it. */
export async function setWallets(
  merchantId: string,
  affiliate: AffiliateView,
  wallets: WalletSettings,
  natsUrl = process.env.NATS_URL!,
): Promise<AffiliateView> {
  const at = new Date(Date.parse(affiliate.updated_at) + 1000).toISOString();
  const updated: AffiliateView = {
    ...affiliate,
    updated_at: at,
    wallet_a_email: wallets.a?.email ?? null,
    wallet_a_email_confirmed_at: wallets.a?.confirmed ? at : null,
    wallet_b_email: wallets.b?.email ?? null,
    wallet_b_email_confirmed_at: wallets.b?.confirmed ? at : null,
  };
  const nc = await connect({ servers: natsUrl });
  try {
    await new EventPublisher(nc).publish(buildEvent('affiliate.updated', merchantId, updated));
    const jsm = await jetstreamManager(nc);
    const stream = STREAMS.affiliate.name;
    const last = await jsm.streams.getMessage(stream, {
      last_by_subj: eventSubject('affiliate.updated'),
    });
    const lastSeq = last?.seq ?? 0;
    await eventually(async () => {
      const info = await jsm.consumers.info(stream, AFFILIATE_CONSUMER);
      const handled =
        info.ack_floor.stream_seq >= lastSeq ||
        (info.delivered.stream_seq >= lastSeq && info.num_ack_pending === 0);
      return handled ? true : undefined;
    });
    return updated;
  } finally {
    await nc.close();
  }
}

interface PayoutClient {
  post(
    path: string,
    form: Record<string, string | string[]>,
  ): Promise<{ status: number; body: any }>;
}

/** A due payout of the affiliate in the currency: one commission, then `generate`. */
export async function duePayout(
  client: PayoutClient,
  merchantId: string,
  affiliate: AffiliateView,
  amount: number,
  currency: string,
  natsUrl = process.env.NATS_URL!,
): Promise<{ id: string; amount: number; created_at: string }> {
  const commission = commissionView(affiliate, { id: randomUUID(), amount, currency });
  await publishCommissionEvents(
    merchantId,
    [{ type: 'commission.created', data: commission }],
    natsUrl,
  );
  const generated = await client.post('/v1/payouts/generate', {
    affiliate_id: affiliate.id,
    currency,
  });
  const payout = generated.body.data?.[0];
  if (generated.status !== 200 || !payout || payout.state !== 'due') {
    throw new Error(`no due payout: ${generated.status} ${JSON.stringify(generated.body)}`);
  }
  return payout;
}
