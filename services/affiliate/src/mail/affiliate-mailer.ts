/** Which events become which mails: confirmation links and new-commission notifications. */
import type {
  CommissionEventView,
  EmailChangeRequested,
  EventEnvelope,
  WalletChangeRequested,
} from '@aff/contracts';
import type { Logger } from '@aff/logging';
import type { EmailConfirmations } from '../domain/email-confirmations';
import type { AffiliateStore } from '../domain/ports';
import type { WalletConfirmations } from '../domain/wallet-confirmations';
import { commissionMail, confirmationMail, walletConfirmationMail } from './mail-templates';
import type { OnceMailer, SendOutcome } from './once-mailer';

/**
 * A new durable consumer starts at the beginning of its stream; mailing about events older than
 * this would flood affiliates with news of long-past commissions.
 */
const NOTIFY_WITHIN_MS = 24 * 3_600_000;

export class AffiliateMailer {
  constructor(
    private readonly once: OnceMailer,
    private readonly confirmations: EmailConfirmations,
    private readonly walletConfirmations: WalletConfirmations,
    private readonly affiliates: AffiliateStore,
    private readonly publicUrl: string,
    private readonly confirmationTtlMs: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Each `on…` gets its event's data as the contract checked it (the consumer's table). */
  async onEmailChangeRequested(
    data: EmailChangeRequested,
    event: EventEnvelope,
    log: Logger,
  ): Promise<SendOutcome> {
    if (this.olderThan(event, this.confirmationTtlMs)) return 'skipped';
    return this.once.sendOnce(
      `confirm-email-${event.id}`,
      async () => {
        const issued = await this.confirmations.issue(
          event.merchant_id,
          data.affiliate_id,
          data.email,
        );
        if (!issued) return null; // confirmed already, or replaced by a newer address
        const url = new URL('/portal/confirm-email', this.publicUrl);
        url.searchParams.set('token', issued.token);
        return confirmationMail({
          to: data.email,
          firstName: issued.affiliate.first_name,
          url: url.toString(),
          expiresAt: issued.expires_at,
        });
      },
      log,
    );
  }

  async onWalletChangeRequested(
    data: WalletChangeRequested,
    event: EventEnvelope,
    log: Logger,
  ): Promise<SendOutcome> {
    if (this.olderThan(event, this.confirmationTtlMs)) return 'skipped';
    return this.once.sendOnce(
      `confirm-wallet-${event.id}`,
      async () => {
        const issued = await this.walletConfirmations.issue(
          event.merchant_id,
          data.affiliate_id,
          data.wallet,
          data.email,
        );
        if (!issued) return null; // confirmed already, cleared, or replaced by a newer address
        const url = new URL('/portal/confirm-wallet', this.publicUrl);
        url.searchParams.set('token', issued.token);
        return walletConfirmationMail({
          to: issued.affiliate.email,
          firstName: issued.affiliate.first_name,
          wallet: data.wallet,
          walletEmail: data.email,
          url: url.toString(),
          expiresAt: issued.expires_at,
        });
      },
      log,
    );
  }

  async onCommissionCreated(
    data: CommissionEventView,
    event: EventEnvelope,
    log: Logger,
  ): Promise<SendOutcome> {
    if (this.olderThan(event, NOTIFY_WITHIN_MS)) return 'skipped';
    return this.once.sendOnce(
      `commission-created-${event.id}`,
      async () => {
        // A burst of commissions (often of one affiliate) shares one read.
        const affiliate = await this.affiliates.findByIdBatched(
          event.merchant_id,
          data.sale.affiliate.id,
        );
        if (!affiliate?.receive_new_commission_notifications) return null;
        return commissionMail({
          to: affiliate.email,
          firstName: affiliate.first_name,
          amountCents: data.amount,
          currency: data.currency,
        });
      },
      log,
    );
  }

  private olderThan(event: EventEnvelope, ms: number): boolean {
    const at = Date.parse(event.occurred_at);
    return Number.isFinite(at) && this.now().getTime() - at > ms;
  }
}
