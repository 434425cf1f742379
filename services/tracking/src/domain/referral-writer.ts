/**
 * Writes referrals together with their events (the store keeps them in the same write and
 * relays them). The view an event carries is the referral as it will be after the write, link
 * counts included. Coupons' counts come with the referral counts the store keeps (no
 * `coupon_referral.updated` any more: data/referral-tallies.ts).
 */
import { buildEvent, deterministicId } from '@aff/contracts';
import type { EventEnvelope, EventMap, ReferralView } from '@aff/contracts';
import type { ReferralPresenter } from './referral-presenter';
import type { CallContext, ReferralStore } from './ports';
import type { LinkCounts, ReferralRecord } from './records';

export type ReferralEventType =
  | 'referral.created'
  | 'referral.lead'
  | 'referral.converted'
  | 'referral.updated'
  | 'referral.flagged'
  | 'referral.reviewed';

export interface WriteOptions {
  /**
   * Only write while the stored referral still matches (e.g. `{ became_lead_at: null }` for the
   * step to lead), so two writers racing on one referral cannot both make the same step.
   */
  condition?: Partial<ReferralRecord>;
  /** Seed for deterministic event ids (a processor event id), so a re-run publishes the same ids. */
  idSeed?: string;
  /** More events to store in the same write, built from the new view. */
  extra?: (view: ReferralView) => EventEnvelope[];
  /** A processor event the write applies, listed on the referral by it (ReferralChange). */
  applies?: string;
}

/** What a write from `before` (null: a new referral) to `after` adds to its link's counts. */
export function countsAdded(before: ReferralRecord | null, after: ReferralRecord): LinkCounts {
  return {
    visitors: before ? 0 : 1,
    leads: after.became_lead_at && !before?.became_lead_at ? 1 : 0,
    conversions: after.became_conversion_at && !before?.became_conversion_at ? 1 : 0,
  };
}

export class ReferralWriter {
  constructor(
    private readonly referrals: ReferralStore,
    private readonly presenter: ReferralPresenter,
  ) {}

  async create(
    ctx: CallContext,
    record: ReferralRecord,
    types: ReferralEventType[],
    opts: WriteOptions = {},
  ): Promise<ReferralView> {
    const view = await this.viewAfter(ctx.merchantId, null, record);
    const events = [...this.events(ctx, types, view, opts.idSeed), ...(opts.extra?.(view) ?? [])];
    await this.referrals.insertWithEvents(record, events, ctx.events);
    return view;
  }

  /**
   * The `referral.created` of a referral written by intake, which publishes it itself. Its id
   * derives from the referral id, so a redelivered visit publishes the same event again and the
   * stream keeps one copy.
   */
  async createdEvents(
    ctx: CallContext,
    record: ReferralRecord,
    /**
     * Whether the visit itself was flagged (its signals were found before it was queued): its
     * flag goes out with it. Not the written record's flag: a redelivered visit may find its
     * referral flagged since by a later step, whose own write sent that `referral.flagged`.
     */
    flaggedOnVisit: boolean,
  ): Promise<EventEnvelope[]> {
    const view = await this.viewAfter(ctx.merchantId, null, record);
    const types: ReferralEventType[] = flaggedOnVisit
      ? ['referral.created', 'referral.flagged']
      : ['referral.created'];
    return this.events(ctx, types, view, `intake:${record._id}`);
  }

  async change(
    ctx: CallContext,
    current: ReferralRecord,
    set: Partial<ReferralRecord>,
    types: ReferralEventType[],
    opts: WriteOptions & { inc?: Partial<Record<'visits', number>> } = {},
  ): Promise<ReferralView | null> {
    const next: ReferralRecord = {
      ...current,
      ...set,
      visits: current.visits + (opts.inc?.visits ?? 0),
    };
    const view = await this.viewAfter(ctx.merchantId, current, next);
    const events = [...this.events(ctx, types, view, opts.idSeed), ...(opts.extra?.(view) ?? [])];
    const written = await this.referrals.updateWithEvents(
      ctx.merchantId,
      current._id,
      set,
      events,
      ctx.events,
      {
        expected: opts.condition,
        addVisits: opts.inc?.visits,
        counts: { referral: current, delta: countsAdded(current, next) },
        ...(opts.applies ? { applies: opts.applies } : {}),
      },
    );
    return written ? view : null;
  }

  /**
   * The view after the write: counts read now, plus what this write adds to them. Events show
   * the referral with `affiliate` expanded, so consumers (counters, webhooks) know whose it is.
   */
  private async viewAfter(
    merchantId: string,
    before: ReferralRecord | null,
    after: ReferralRecord,
  ): Promise<ReferralView> {
    const view = await this.presenter.presentOne(merchantId, after, { withAffiliate: true });
    if (view.link) {
      const added = countsAdded(before, after);
      view.link.visitors += added.visitors;
      view.link.leads += added.leads;
      view.link.conversions += added.conversions;
    }
    return view;
  }

  private events(
    ctx: CallContext,
    types: ReferralEventType[],
    view: ReferralView,
    idSeed?: string,
  ): EventEnvelope[] {
    return types.map((type) => {
      const event = buildEvent(type, ctx.merchantId, view as EventMap[typeof type]);
      return idSeed ? { ...event, id: deterministicId(`${idSeed}:${type}`) } : event;
    });
  }
}
