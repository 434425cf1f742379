/**
 * Hands an event's fresh deliveries to the senders and decides when the event may be acked.
 * Fresh deliveries have no schedule entry (saving two writes each when the first attempt
 * succeeds, as almost all do), so the event is acked only once each has answered or been put
 * on the schedule: after `waitMs` at most, whatever is still sending (or was turned away by a
 * full lane) is scheduled, so a slow endpoint never holds up the stream for long.
 */
import type { ScheduleRepository } from '../data/schedule.repository';
import type { DueDelivery } from '../domain/ports';
import type { Offered } from '../outbound/dispatcher';

export class DeliveriesHandoff {
  constructor(
    private readonly dispatcher: { offer(due: DueDelivery[]): Offered },
    private readonly schedule: ScheduleRepository,
    private readonly waitMs: number,
  ) {}

  async handOver(fresh: DueDelivery[]): Promise<void> {
    if (fresh.length === 0) return;
    const { running, refused } = this.dispatcher.offer(fresh);
    const unfinished = new Set(running.map((r) => r.due));
    const finished = Promise.all(running.map((r) => r.done.then(() => unfinished.delete(r.due))));
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
    // Scheduled at its slot: the poller takes it once the first attempt's lease has run out.
    await Promise.all([...refused, ...unfinished].map((due) => this.schedule.set(due)));
  }
}
