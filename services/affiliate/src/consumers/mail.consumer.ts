/** Durable consumers that turn affiliate and commission events into mails (see mail/). */
import { STREAMS } from '@aff/contracts';
import type { Logger } from '@aff/logging';
import {
  eventHandlers,
  startConsumer,
  type NatsConnection,
  type RunningConsumer,
} from '@aff/messaging';
import type { AffiliateMailer } from '../mail/affiliate-mailer';

// Longer than the SMTP timeouts: an attempt fails before JetStream offers the event again.
const ACK_WAIT_MS = 60_000;

export async function startMailConsumers(
  nc: NatsConnection,
  mailer: AffiliateMailer,
  log: Logger,
): Promise<RunningConsumer[]> {
  return [
    await startConsumer(nc, {
      stream: STREAMS.affiliate.name,
      durable: 'affiliate-mail-confirmations',
      concurrency: 4,
      ackWaitMs: ACK_WAIT_MS,
      log: log.child({ consumer: 'affiliate-mail-confirmations' }),
      ...eventHandlers({
        'affiliate.email_change_requested': async (data, { event, log: eventLog }) => {
          await mailer.onEmailChangeRequested(data, event, eventLog);
        },
        'affiliate.wallet_change_requested': async (data, { event, log: eventLog }) => {
          await mailer.onWalletChangeRequested(data, event, eventLog);
        },
      }),
    }),
    await startConsumer(nc, {
      stream: STREAMS.commission.name,
      durable: 'affiliate-mail-commissions',
      // A burst of commissions (a backlog of charges) comes as a burst of mails: the mails
      // handled at once share their check, affiliate read and record write (OnceMailer: one
      // document per mail, written after the send). 16 open SMTP sessions at most, each one
      // mail, as before.
      concurrency: 16,
      ackWaitMs: ACK_WAIT_MS,
      log: log.child({ consumer: 'affiliate-mail-commissions' }),
      ...eventHandlers({
        'commission.created': async (data, { event, log: eventLog }) => {
          await mailer.onCommissionCreated(data, event, eventLog);
        },
      }),
    }),
  ];
}
