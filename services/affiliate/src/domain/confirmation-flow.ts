/**
 * The one flow behind confirming a changed address, the account e-mail's or a wallet's: a
 * single-use link per pending address (the newest request wins, only a hash is stored), and its
 * use, which makes the pending address current while it is still the pending one. What differs,
 * the field that holds the pending address, the link's record and what confirming writes and
 * answers, is the `ConfirmationKind` passed in (email-confirmations.ts, wallet-confirmations.ts).
 */
import { AppError } from '@aff/api';
import type { AffiliateView, EventEnvelope } from '@aff/contracts';
import type { AffiliatePresenter } from './affiliate-presenter';
import type { AffiliateStore, CallContext, OneTimeTokenStore } from './ports';
import type { AffiliateRecord, EmailConfirmationRecord } from './records';
import { hashLinkToken, newLinkToken } from './link-tokens';

const INVALID = 'This confirmation link is invalid, used, expired or replaced by a newer one.';

export const invalidLink = () => new AppError('not_found', INVALID);

/** A link's record, whichever address it confirms (both kinds have the same shape). */
export type ConfirmationRecord = EmailConfirmationRecord;

/** An address awaiting confirmation: whose, for what (`target`), which. */
export interface PendingAddress<Target> {
  merchantId: string;
  affiliateId: string;
  target: Target;
  email: string;
}

/** What confirming does once the link is claimed and its address is still the pending one. */
export interface ConfirmStep<Target> {
  pending: PendingAddress<Target>;
  current: AffiliateRecord;
  now: Date;
  /**
   * Writes `set` with the events made from the affiliate's new view, only while the address is
   * still the pending one (a newer change in between wins: the link is then invalid).
   */
  apply(
    set: Partial<AffiliateRecord>,
    events: (view: AffiliateView) => EventEnvelope[],
  ): Promise<AffiliateView>;
}

export interface ConfirmationKind<R extends ConfirmationRecord, Target, Confirmed> {
  /** The affiliate's field holding the address awaiting confirmation for `target`. */
  pendingField(target: Target): keyof AffiliateRecord;
  /** The link's record (its `_id`: one link per affiliate and target). */
  record(pending: PendingAddress<Target>, token: Pick<R, 'token_hash' | 'expires_at'>): R;
  /** Whose and which address a claimed link confirms. */
  pendingOf(claimed: R): PendingAddress<Target>;
  confirm(step: ConfirmStep<Target>): Promise<Confirmed>;
}

export interface IssuedConfirmation {
  affiliate: AffiliateRecord;
  token: string;
  expires_at: Date;
}

export class ConfirmationFlow<R extends ConfirmationRecord, Target, Confirmed> {
  constructor(
    private readonly kind: ConfirmationKind<R, Target, Confirmed>,
    private readonly tokens: OneTimeTokenStore<R>,
    private readonly affiliates: AffiliateStore,
    private readonly presenter: AffiliatePresenter,
    private readonly ttlMs: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** A fresh link for `email`, or null when it is no longer the address awaiting confirmation. */
  protected async issueFor(pending: PendingAddress<Target>): Promise<IssuedConfirmation | null> {
    const affiliate = await this.affiliates.findById(pending.merchantId, pending.affiliateId);
    if (!affiliate || affiliate[this.kind.pendingField(pending.target)] !== pending.email)
      return null;
    const token = newLinkToken();
    const expires = new Date(this.now().getTime() + this.ttlMs);
    await this.tokens.replace(
      this.kind.record(pending, { token_hash: hashLinkToken(token), expires_at: expires }),
    );
    return { affiliate, token, expires_at: expires };
  }

  /** Uses the link once: the kind's confirm step makes the pending address current. */
  async confirm(token: string, ctx: Pick<CallContext, 'events'>): Promise<Confirmed> {
    const now = this.now();
    const claimed = token ? await this.tokens.claim(hashLinkToken(token), now) : null;
    if (!claimed) throw invalidLink();
    const pending = this.kind.pendingOf(claimed);
    const { merchantId, email } = pending;
    const field = this.kind.pendingField(pending.target);
    const current = await this.affiliates.findById(merchantId, pending.affiliateId);
    if (!current || current[field] !== email) throw invalidLink();
    const apply: ConfirmStep<Target>['apply'] = async (set, events) => {
      const view = await this.presenter.presentOne(merchantId, { ...current, ...set });
      const expected: Partial<AffiliateRecord> = { [field]: email };
      const updated = await this.affiliates.updateWithEvents(
        merchantId,
        current._id,
        set,
        events(view),
        ctx.events,
        expected,
      );
      if (!updated) throw invalidLink();
      return view;
    };
    return this.kind.confirm({ pending, current, now, apply });
  }
}
