/**
 * Runs delivery attempts with bounded concurrency: one lane per endpoint (a few requests at
 * once) feeding one shared pool (many at once), so a slow endpoint holds at most its lane's
 * share of the pool and cannot starve the others. Only ids wait in memory; the schedule stays
 * in MongoDB, and an attempt claims its delivery only when it starts.
 */
import fastq, { type queueAsPromised } from 'fastq';
import type { Logger } from '@aff/logging';
import type { DeliveryQueue, DueDelivery } from '../domain/ports';

export interface DispatcherOptions {
  /** Attempts in flight over all endpoints. */
  concurrency: number;
  /** Attempts in flight to one endpoint. */
  perEndpoint: number;
  /** Ids waiting in one lane before the lane counts as full. */
  laneBacklog?: number;
  /** Ids held in memory in all; beyond that, due deliveries wait in the database. */
  maxQueued?: number;
}

export interface Offered {
  /** `done` tells, once the attempt is over, whether it went through (false: it threw or did nothing). */
  running: { due: DueDelivery; done: Promise<boolean> }[];
  refused: DueDelivery[];
}

export class DeliveryDispatcher implements DeliveryQueue {
  private readonly pool: queueAsPromised<DueDelivery, boolean>;
  private readonly lanes = new Map<string, queueAsPromised<DueDelivery, boolean>>();
  /** `<id>:<slot>` of every offer waiting or running, so one is not queued twice. */
  private readonly queued = new Set<string>();
  private readonly laneBacklog: number;
  private readonly maxQueued: number;
  private stopped = false;

  constructor(
    attempt: (due: DueDelivery) => Promise<unknown>,
    private readonly options: DispatcherOptions,
    private readonly log: Logger,
  ) {
    this.laneBacklog = options.laneBacklog ?? options.perEndpoint * 4;
    this.maxQueued = options.maxQueued ?? options.concurrency * 16;
    this.pool = fastq.promise(async (due: DueDelivery) => {
      if (this.stopped) return false;
      return attempt(due).then(
        (made) => made !== false,
        (error: unknown) => {
          // The delivery stays due in the database (or is stored so by the hand-off); the
          // poller brings it back.
          this.log.warn({ err: error, deliveryId: due.id }, 'delivery attempt failed; will retry');
          return false;
        },
      );
    }, options.concurrency);
  }

  /**
   * Queues what fits; anything else is left to the poller, which finds it due in the database.
   * Tells which were taken (with a promise of their attempt's end) and which were turned away.
   */
  offer(due: DueDelivery[]): Offered {
    const offered: Offered = { running: [], refused: [] };
    for (const item of due) {
      if (this.stopped || this.queued.size >= this.maxQueued) {
        offered.refused.push(item);
        continue;
      }
      const key = `${item.id}:${item.slot}`;
      // Already waiting or running: turned away too, so a fresh delivery's hand-off still
      // stores it rather than take this offer for one that will store it.
      if (this.queued.has(key)) {
        offered.refused.push(item);
        continue;
      }
      const lane = this.laneOf(item.endpoint_id);
      if (lane.length() + lane.running() >= this.laneBacklog) {
        offered.refused.push(item);
        continue;
      }
      this.queued.add(key);
      const running = lane
        .push(item)
        .catch((error: unknown) => {
          this.log.error({ err: error }, 'delivery lane failed');
          return false;
        })
        .finally(() => {
          this.queued.delete(key);
          if (lane.idle() && this.lanes.get(item.endpoint_id) === lane) {
            this.lanes.delete(item.endpoint_id);
          }
        });
      offered.running.push({ due: item, done: running });
    }
    return offered;
  }

  /** How many more ids the poller may hand over. */
  room(): number {
    return this.stopped ? 0 : Math.max(0, this.maxQueued - this.queued.size);
  }

  /** Endpoints whose lane is full; the poller does not fetch their deliveries. */
  fullEndpoints(): string[] {
    const full: string[] = [];
    for (const [endpointId, lane] of this.lanes) {
      if (lane.length() + lane.running() >= this.laneBacklog) full.push(endpointId);
    }
    return full;
  }

  /** Starts nothing new and waits for attempts in flight; queued ids stay due in the database. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const lane of this.lanes.values()) lane.kill();
    this.pool.kill();
    await this.pool.drained();
  }

  private laneOf(endpointId: string): queueAsPromised<DueDelivery, boolean> {
    let lane = this.lanes.get(endpointId);
    if (!lane) {
      lane = fastq.promise((due: DueDelivery) => this.pool.push(due), this.options.perEndpoint);
      this.lanes.set(endpointId, lane);
    }
    return lane;
  }
}
