/**
 * `POST /v1/referrals/:id/review`: the merchant's decision on a referral held for its fraud
 * signals. The step from `open` is a conditional write, so of two reviews racing on one referral
 * only one takes effect and the other is told the review is no longer open. The money follows
 * from `referral.reviewed`: the commission service releases or voids the held commissions.
 */
import type { ReferralView, ReviewReferralBody } from '@aff/contracts';
import { errors } from '@aff/api';
import type { CallContext, ReferralStore } from './ports';
import type { ReferralRecord } from './records';
import type { ReferralWriter } from './referral-writer';

const FAILED = 'Could not review referral.';

export class ReferralReviews {
  constructor(
    private readonly referrals: ReferralStore,
    private readonly writer: ReferralWriter,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async review(ctx: CallContext, id: string, body: ReviewReferralBody): Promise<ReferralView> {
    const current = await this.referrals.findById(ctx.merchantId, id);
    if (!current) throw errors.notFound('Referral', id);
    if (current.review_state !== 'open') throw notOpen(current);
    const now = this.now();
    const approve = body.decision === 'approve';
    const set: Partial<ReferralRecord> = {
      review_state: approve ? 'approved' : 'rejected',
      reviewed_at: now,
      review_note: body.note ?? null,
      updated_at: now,
      ...(!approve && !current.deactivated_at ? { deactivated_at: now } : {}),
    };
    const view = await this.writer.change(ctx, current, set, ['referral.reviewed'], {
      condition: { review_state: 'open' },
    });
    // Another review decided it between the read and the write.
    if (!view) throw notOpen({ review_state: 'decided' });
    return view;
  }
}

function notOpen(referral: { review_state?: string | null }) {
  const state = referral.review_state;
  return errors.invalid(FAILED, [
    state && state !== 'open'
      ? `Referral has already been reviewed`
      : 'Referral is not held for review',
  ]);
}
