/**
 * Confirming a changed affiliate e-mail: a single-use link per pending address (the newest
 * request wins, only a hash is stored), and the confirmation that makes the address current.
 */
import { AppError, errors } from '@aff/api';
import { buildEvent, type AffiliateView } from '@aff/contracts';
import type { AffiliatePresenter } from './affiliate-presenter';
import {
  DuplicateError,
  type AffiliateStore,
  type CallContext,
  type EmailConfirmationStore,
} from './ports';
import type { AffiliateRecord } from './records';
import { hashLinkToken, newLinkToken } from './link-tokens';

const INVALID = 'This confirmation link is invalid, used, expired or replaced by a newer one.';

export interface IssuedConfirmation {
  affiliate: AffiliateRecord;
  token: string;
  expires_at: Date;
}

export class EmailConfirmations {
  constructor(
    private readonly tokens: EmailConfirmationStore,
    private readonly affiliates: AffiliateStore,
    private readonly presenter: AffiliatePresenter,
    private readonly ttlMs: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** A fresh link for `email`, or null when that address is no longer the one awaiting confirmation. */
  async issue(
    merchantId: string,
    affiliateId: string,
    email: string,
  ): Promise<IssuedConfirmation | null> {
    const affiliate = await this.affiliates.findById(merchantId, affiliateId);
    if (!affiliate || affiliate.unconfirmed_email !== email) return null;
    const token = newLinkToken();
    const expires = new Date(this.now().getTime() + this.ttlMs);
    await this.tokens.replace({
      _id: affiliateId,
      merchant_id: merchantId,
      email,
      token_hash: hashLinkToken(token),
      expires_at: expires,
      used_at: null,
    });
    return { affiliate, token, expires_at: expires };
  }

  /** Uses the link once: the pending address becomes `email`, and `affiliate.confirmed` follows. */
  async confirm(token: string, ctx: Pick<CallContext, 'events'>): Promise<AffiliateView> {
    const now = this.now();
    const claimed = token ? await this.tokens.claim(hashLinkToken(token), now) : null;
    if (!claimed) throw new AppError('not_found', INVALID);
    const merchantId = claimed.merchant_id;
    const current = await this.affiliates.findById(merchantId, claimed._id);
    if (!current || current.unconfirmed_email !== claimed.email)
      throw new AppError('not_found', INVALID);
    const taken = await this.affiliates.findByEmail(merchantId, claimed.email, current._id);
    if (taken) throw errors.invalid('Could not confirm e-mail.', ['Email has already been taken']);

    const set: Partial<AffiliateRecord> = {
      email: claimed.email,
      confirmed_at: now,
      unconfirmed_email: null,
      updated_at: now,
    };
    const view = await this.presenter.presentOne(merchantId, { ...current, ...set });
    try {
      const updated = await this.affiliates.updateWithEvents(
        merchantId,
        current._id,
        set,
        [
          buildEvent('affiliate.updated', merchantId, view),
          buildEvent('affiliate.confirmed', merchantId, view),
        ],
        ctx.events,
        { unconfirmed_email: claimed.email },
      );
      if (!updated) throw new AppError('not_found', INVALID);
      return view;
    } catch (error) {
      if (error instanceof DuplicateError)
        throw errors.invalid('Could not confirm e-mail.', ['Email has already been taken']);
      throw error;
    }
  }
}
