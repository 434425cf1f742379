/**
 * Confirming a changed affiliate e-mail (the flow: confirmation-flow.ts): the pending address
 * is `unconfirmed_email`; confirming checks that no other affiliate of the merchant has the
 * address, makes it the e-mail, and publishes `affiliate.updated` and `affiliate.confirmed`.
 */
import { errors } from '@aff/api';
import { buildEvent, type AffiliateView } from '@aff/contracts';
import type { AffiliatePresenter } from './affiliate-presenter';
import {
  ConfirmationFlow,
  type ConfirmationKind,
  type IssuedConfirmation,
} from './confirmation-flow';
import { DuplicateError, type AffiliateStore, type EmailConfirmationStore } from './ports';
import type { EmailConfirmationRecord } from './records';

const TAKEN = () => errors.invalid('Could not confirm e-mail.', ['Email has already been taken']);

const emailKind = (
  affiliates: AffiliateStore,
): ConfirmationKind<EmailConfirmationRecord, null, AffiliateView> => ({
  pendingField: () => 'unconfirmed_email',
  record: ({ merchantId, affiliateId, email }, token) => ({
    _id: affiliateId,
    merchant_id: merchantId,
    email,
    ...token,
    used_at: null,
  }),
  pendingOf: (claimed) => ({
    merchantId: claimed.merchant_id,
    affiliateId: claimed._id,
    target: null,
    email: claimed.email,
  }),
  async confirm({ pending, current, now, apply }) {
    const { merchantId, email } = pending;
    if (await affiliates.findByEmail(merchantId, email, current._id)) throw TAKEN();
    const set = { email, confirmed_at: now, unconfirmed_email: null, updated_at: now };
    try {
      return await apply(set, (view) => [
        buildEvent('affiliate.updated', merchantId, view),
        buildEvent('affiliate.confirmed', merchantId, view),
      ]);
    } catch (error) {
      if (error instanceof DuplicateError) throw TAKEN();
      throw error;
    }
  },
});

export class EmailConfirmations extends ConfirmationFlow<
  EmailConfirmationRecord,
  null,
  AffiliateView
> {
  constructor(
    tokens: EmailConfirmationStore,
    affiliates: AffiliateStore,
    presenter: AffiliatePresenter,
    ttlMs: number,
    now?: () => Date,
  ) {
    super(emailKind(affiliates), tokens, affiliates, presenter, ttlMs, now);
  }

  /** A fresh link for `email`, or null when that address is no longer the one awaiting confirmation. */
  issue(
    merchantId: string,
    affiliateId: string,
    email: string,
  ): Promise<IssuedConfirmation | null> {
    return this.issueFor({ merchantId, affiliateId, target: null, email });
  }
}
