/**
 * Reads the stored schedule on an interval and hands due deliveries to the senders: retries,
 * deliveries a full lane turned away, and whatever a stopped or crashed process left due.
 */
import type { IntervalJob } from '@aff/kernel';
import type { ScheduleRepository } from '../data/schedule.repository';
import type { DeliveryDispatcher } from '../outbound/dispatcher';

export function dueDeliveriesJob(
  schedule: ScheduleRepository,
  dispatcher: DeliveryDispatcher,
  intervalMs: number,
): IntervalJob {
  return {
    everyMs: intervalMs,
    run: async () => {
      const room = dispatcher.room();
      if (room === 0) return;
      const due = await schedule.findDue(new Date(), room, dispatcher.fullEndpoints());
      dispatcher.offer(due);
    },
    failure: 'due-delivery poll failed',
  };
}
