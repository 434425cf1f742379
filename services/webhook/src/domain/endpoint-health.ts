/**
 * Endpoint health: an endpoint whose attempts have all failed for the disable period is
 * disabled, with `webhook_endpoint.disabled` queued in the same write (the endpoints' outbox).
 *
 * Cheap by design: the endpoint as the sender already holds it (from the in-memory directory)
 * tells whether anything must be written. A success writes only when `failing_since` is set
 * (the first success after failures); a failure writes only when it is the first of a run (it
 * sets `failing_since`) or when the run has lasted the period (it disables). Every other
 * attempt, including every success of a healthy endpoint, writes nothing here. Each write
 * announces the change, so other replicas re-read the endpoint instead of acting on a copy
 * that misses it. The disabling write is conditional on the stored `failing_since`, so a
 * success recorded meanwhile (by any replica) prevents it.
 */
import { buildEvent } from '@aff/contracts';
import type { EndpointStore } from './ports';
import type { EndpointRecord } from './records';
import { toEndpointView } from './views';

export interface HealthSettings {
  /** How long every attempt must have failed before the endpoint is disabled (already scaled). */
  disableAfterMs: number;
  /** The period as configured, before scaling: what the reason tells the merchant. */
  disableAfterLabelMs: number;
}

/** What an attempt tells about its endpoint. */
export interface AttemptReport {
  /** The endpoint answered 200. */
  succeeded: boolean;
  startedAt: Date;
  finishedAt: Date;
}

export class EndpointHealth {
  constructor(
    private readonly endpoints: EndpointStore,
    private readonly directory: { changed(merchantId: string): void },
    private readonly settings: HealthSettings,
  ) {}

  /** Records one attempt that was really sent to the (enabled) endpoint. */
  async record(endpoint: EndpointRecord, report: AttemptReport): Promise<void> {
    const since = endpoint.failing_since ? new Date(endpoint.failing_since) : null;
    if (report.succeeded) {
      if (since) await this.recovered(endpoint);
      return;
    }
    if (!since) {
      await this.startedFailing(endpoint, report.startedAt);
    } else if (report.finishedAt.getTime() - since.getTime() >= this.settings.disableAfterMs) {
      await this.disable(endpoint, report.finishedAt);
    }
  }

  private async recovered(endpoint: EndpointRecord): Promise<void> {
    await this.endpoints.update(endpoint.merchant_id, endpoint._id, { failing_since: null });
    this.directory.changed(endpoint.merchant_id);
  }

  private async startedFailing(endpoint: EndpointRecord, at: Date): Promise<void> {
    // Conditional: a run another attempt already started keeps its (earlier) start.
    const started = await this.endpoints.startFailing(endpoint.merchant_id, endpoint._id, at);
    // Either way this replica's copy is stale (set here, or set before by another replica).
    if (started || !endpoint.failing_since) this.directory.changed(endpoint.merchant_id);
  }

  private async disable(endpoint: EndpointRecord, now: Date): Promise<void> {
    const changes = {
      enabled: false,
      disabled_at: now,
      disabled_reason: disabledReason(this.settings.disableAfterLabelMs),
      updated_at: now,
    };
    const view = toEndpointView({ ...endpoint, ...changes });
    // The store relays the event once it is written with the change (the endpoints' outbox).
    const disabled = await this.endpoints.disable(
      endpoint.merchant_id,
      endpoint._id,
      changes,
      new Date(now.getTime() - this.settings.disableAfterMs),
      [buildEvent('webhook_endpoint.disabled', endpoint.merchant_id, view, now)],
    );
    if (!disabled) return;
    this.directory.changed(endpoint.merchant_id);
  }
}

/** `Every delivery attempt failed for 5 days` (the period as configured, before scaling). */
export function disabledReason(periodMs: number): string {
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1000, 'second'],
  ];
  const [size, name] = units.find(([ms]) => periodMs % ms === 0) ?? [1, 'millisecond'];
  const count = periodMs / size;
  return `Every delivery attempt failed for ${count} ${name}${count === 1 ? '' : 's'}`;
}
