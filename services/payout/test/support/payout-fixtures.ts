/**
 * Test support for payouts: plays the commission service (publishes well-formed commission
 * events on JetStream, as it will), waits until the payout service has consumed them, and
 * reads back what the payout service published.
 */
import { randomUUID } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import {
  STREAMS,
  buildEvent,
  eventSubject,
  type AffiliateView,
  type CommissionState,
  type CommissionEventView,
  type EventEnvelope,
  type PayoutView,
} from '@aff/contracts';
import { EventPublisher } from '@aff/messaging';
import { eventually } from '../../../../test/support/processor';
import { readEvents } from '../../../../test/support/events';

export const COMMISSION_CONSUMER = 'payout-commissions';

export interface CommissionFields {
  id?: string;
  amount: number;
  currency?: string;
  state?: CommissionState;
  created_at?: Date;
  updated_at?: Date;
  voided_at?: Date | null;
}

/** A commission as the commission service shows it: with its campaign and sale embedded. */
export function commissionView(
  affiliate: AffiliateView,
  fields: CommissionFields,
): CommissionEventView {
  const created = fields.created_at ?? new Date();
  const updated = fields.updated_at ?? created;
  const currency = fields.currency ?? 'USD';
  const link = affiliate.links![0]!;
  const customerId = `cus_${randomUUID()}`;
  return {
    id: fields.id ?? randomUUID(),
    created_at: created.toISOString(),
    updated_at: updated.toISOString(),
    amount: fields.amount,
    currency,
    state: fields.state ?? 'due',
    due_at: created.toISOString(),
    paid_at: null,
    voided_at: fields.voided_at ? fields.voided_at.toISOString() : null,
    campaign: affiliate.campaign!,
    sale: {
      id: randomUUID(),
      currency,
      charged_at: created.toISOString(),
      invoiced_at: null,
      created_at: created.toISOString(),
      updated_at: created.toISOString(),
      processor_account_id: 'acct_test',
      processor_charge_id: `ch_${randomUUID()}`,
      charge_amount_cents: fields.amount * 5,
      refund_amount_cents: 0,
      tax_amount_cents: 0,
      sale_amount_cents: fields.amount * 5,
      referral: {
        id: randomUUID(),
        link: {
          id: link.id,
          url: link.url,
          token: link.token,
          visitors: link.visitors,
          leads: link.leads,
          conversions: link.conversions,
        },
        visits: 1,
        customer: { platform: 'processor', id: customerId, name: 'Cus Tomer', email: null },
        created_at: created.toISOString(),
        became_lead_at: created.toISOString(),
        became_conversion_at: created.toISOString(),
        expires_at: new Date(created.getTime() + 60 * 86_400_000).toISOString(),
        updated_at: created.toISOString(),
        deactivated_at: null,
        conversion_state: 'conversion',
        processor_account_id: 'acct_test',
        processor_customer_id: customerId,
      },
      affiliate,
    },
  };
}

type CommissionEventType =
  'commission.created' | 'commission.updated' | 'commission.paid' | 'commission.voided';

/**
 * Publishes commission events with the libraries' publisher and waits until the payout
 * service's durable consumer has handled them (its ack floor, or everything delivered acked).
 */
export async function publishCommissionEvents(
  merchantId: string,
  events: { type: CommissionEventType; data: CommissionEventView }[],
  natsUrl = process.env.NATS_URL!,
): Promise<EventEnvelope<CommissionEventView>[]> {
  const nc = await connect({ servers: natsUrl });
  try {
    const publisher = new EventPublisher(nc);
    const envelopes = events.map(({ type, data }) => buildEvent(type, merchantId, data));
    for (const envelope of envelopes) await publisher.publish(envelope);
    const jsm = await jetstreamManager(nc);
    const stream = STREAMS.commission.name;
    let lastSeq = 0;
    // The newest message of each subject we used is ours or a later one: waiting for it is enough.
    for (const subject of new Set(envelopes.map((e) => eventSubject(e.type)))) {
      const message = await jsm.streams.getMessage(stream, { last_by_subj: subject });
      lastSeq = Math.max(lastSeq, message?.seq ?? 0);
    }
    await eventually(async () => {
      const info = await jsm.consumers.info(stream, COMMISSION_CONSUMER);
      const handled =
        info.ack_floor.stream_seq >= lastSeq ||
        (info.delivered.stream_seq >= lastSeq && info.num_ack_pending === 0);
      return handled ? true : undefined;
    });
    return envelopes;
  } finally {
    await nc.close();
  }
}

/** Publishes raw bytes on a commission subject (a poison message). */
export async function publishRaw(subject: string, data: string, natsUrl = process.env.NATS_URL!) {
  const nc = await connect({ servers: natsUrl });
  try {
    await jetstream(nc).publish(subject, data, { msgID: randomUUID() });
  } finally {
    await nc.close();
  }
}

/** Every payout event about one payout, in stream order. */
export async function payoutEvents(
  payoutId: string,
  natsUrl = process.env.NATS_URL!,
): Promise<EventEnvelope<PayoutView>[]> {
  const seen = await readEvents(
    STREAMS.payout.name,
    'evt.payout.>',
    (e) => e.data?.id === payoutId,
    natsUrl,
  );
  return seen.map((s) => s.event as EventEnvelope<PayoutView>);
}

// One polling helper for every test: the end-to-end suite's.
export { eventually };
