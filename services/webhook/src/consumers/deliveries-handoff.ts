/**
 * Hands an event's fresh deliveries to the senders and decides when the event may be acked.
 * Fresh deliveries exist only in memory until their first attempt answers; that attempt then
 * stores each with one write (domain/delivery-claims.ts). So the event is acked only once each
 * is stored: after `waitMs` at most, whatever is still sending, was turned away by a full lane
 * or failed to store is stored pending, with a schedule entry (`park`), so a slow endpoint never
 * holds up the stream for long. A crash before the ack redelivers the event, and the fan-out
 * sends again what it finds unstored, with the same `webhook-id` (at least once).
 */
import type { DueDelivery } from '../domain/ports';
import type { Claim } from '../domain/delivery-claims';
import type { Offered } from '../outbound/dispatcher';

export class DeliveriesHandoff {
  constructor(
    private readonly dispatcher: { offer(due: DueDelivery[]): Offered },
    private readonly claims: { park(claim: Claim, leased: boolean): Promise<void> },
    private readonly waitMs: number,
  ) {}

  async handOver(fresh: DueDelivery[]): Promise<void> {
    if (fresh.length === 0) return;
    const { running, refused } = this.dispatcher.offer(fresh);
    const unfinished = new Set(running.map((r) => r.due));
    const failed: DueDelivery[] = [...refused];
    const finished = Promise.all(
      running.map((r) =>
        r.done.then((stored) => {
          unfinished.delete(r.due);
          if (!stored) failed.push(r.due);
        }),
      ),
    );
    // A plain timer, cleared when every delivery answered first: an aborted timers/promises
    // delay builds an AbortError per event, measurable in a drain's profile.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      finished,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.waitMs);
      }),
    ]);
    clearTimeout(timer);
    // Still sending: stored with its claim, which its answer then settles. The others are due
    // at once: the poller takes them at its next tick.
    await Promise.all([
      ...[...unfinished].map((due) => this.claims.park(due.held!, true)),
      ...failed.map((due) => this.claims.park(due.held!, false)),
    ]);
  }
}
