/**
 * Reads the stored schedule on an interval and hands due deliveries to the senders: retries,
 * deliveries a full lane turned away, and whatever a stopped or crashed process left due.
 */
import type { Logger } from '@aff/logging';
import type { ScheduleRepository } from '../data/schedule.repository';
import type { DeliveryDispatcher } from '../outbound/dispatcher';

export interface RunningPoller {
  stop(): Promise<void>;
}

export function startDuePoller(
  schedule: ScheduleRepository,
  dispatcher: DeliveryDispatcher,
  intervalMs: number,
  log: Logger,
): RunningPoller {
  let polling: Promise<void> | undefined;
  const poll = async () => {
    const room = dispatcher.room();
    if (room === 0) return;
    const due = await schedule.findDue(new Date(), room, dispatcher.fullEndpoints());
    dispatcher.offer(due);
  };
  const timer = setInterval(() => {
    polling ??= poll()
      .catch((error: unknown) => log.warn({ err: error }, 'due-delivery poll failed'))
      .finally(() => {
        polling = undefined;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await polling;
    },
  };
}
