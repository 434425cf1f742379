/**
 * Confirming a changed affiliate e-mail: a single-use link per pending address (the newest
 * request wins, only a hash is stored), and the confirmation that makes the address current.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Model } from 'mongoose';
import { AppError, errors } from '@aff/api';
import { buildEvent, type AffiliateView } from '@aff/contracts';
import { isDuplicateKeyError, type TenantRepository } from '@aff/mongo';
import type { AffiliateRecord } from '../data/affiliate.schema';
import type { EmailConfirmationRecord } from '../data/email-confirmation.schema';
import type { AffiliatePresenter } from './affiliate-presenter';
import type { CallContext, EventRelay } from './ports';

const hash = (token: string) => createHash('sha256').update(token).digest('hex');
const INVALID = 'This confirmation link is invalid, used, expired or replaced by a newer one.';

export interface IssuedConfirmation {
  affiliate: AffiliateRecord;
  token: string;
  expires_at: Date;
}

export class EmailConfirmations {
  constructor(
    private readonly tokens: Model<EmailConfirmationRecord>,
    private readonly affiliates: TenantRepository<AffiliateRecord>,
    private readonly presenter: AffiliatePresenter,
    private readonly relay: EventRelay,
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
    const token = randomBytes(32).toString('base64url');
    const expires = new Date(this.now().getTime() + this.ttlMs);
    await this.tokens.replaceOne(
      { _id: affiliateId },
      {
        _id: affiliateId,
        merchant_id: merchantId,
        email,
        token_hash: hash(token),
        expires_at: expires,
        used_at: null,
      },
      { upsert: true },
    );
    return { affiliate, token, expires_at: expires };
  }

  /** Uses the link once: the pending address becomes `email`, and `affiliate.confirmed` follows. */
  async confirm(token: string, ctx: Pick<CallContext, 'events'>): Promise<AffiliateView> {
    const now = this.now();
    const claimed = token
      ? await this.tokens
          .findOneAndUpdate(
            { token_hash: hash(token), used_at: null, expires_at: { $gt: now } },
            { $set: { used_at: now } },
            { new: true },
          )
          .lean<EmailConfirmationRecord>()
          .exec()
      : null;
    if (!claimed) throw new AppError('not_found', INVALID);
    const merchantId = claimed.merchant_id;
    const current = await this.affiliates.findById(merchantId, claimed._id);
    if (!current || current.unconfirmed_email !== claimed.email)
      throw new AppError('not_found', INVALID);
    const taken = await this.affiliates.findOne(merchantId, {
      email: claimed.email,
      _id: { $ne: current._id },
    });
    if (taken) throw errors.invalid('Could not confirm e-mail.', ['Email has already been taken']);

    const set = {
      email: claimed.email,
      confirmed_at: now,
      unconfirmed_email: null,
      updated_at: now,
    };
    const view = await this.presenter.presentOne(merchantId, { ...current, ...set });
    try {
      const result = await this.affiliates.updateIf(
        merchantId,
        current._id,
        { unconfirmed_email: claimed.email },
        { $set: set },
        [
          buildEvent('affiliate.updated', merchantId, view),
          buildEvent('affiliate.confirmed', merchantId, view),
        ],
        ctx.events,
      );
      if (!result) throw new AppError('not_found', INVALID);
      await this.relay.relay(result.pending);
      return view;
    } catch (error) {
      if (isDuplicateKeyError(error))
        throw errors.invalid('Could not confirm e-mail.', ['Email has already been taken']);
      throw error;
    }
  }
}
