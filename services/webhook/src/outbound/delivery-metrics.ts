/**
 * Webhook delivery outcomes (`webhook.deliveries` by outcome) and how many endpoints are failing
 * right now (their latest attempt from this replica did not get a 200).
 */
import { metrics } from '@opentelemetry/api';

export type AttemptResult = 'delivered' | 'retrying' | 'failed';

const meter = metrics.getMeter('affiliate-platform');
const deliveries = meter.createCounter('webhook.deliveries', {
  description: 'Webhook delivery attempts by outcome',
  unit: '{attempt}',
});
/** Endpoint id -> whether its latest attempt failed. */
const latest = new Map<string, boolean>();
meter
  .createObservableGauge('webhook.endpoints.failing', {
    description: 'Endpoints whose latest delivery attempt failed',
    unit: '{endpoint}',
  })
  .addCallback((result) => {
    let failing = 0;
    for (const failed of latest.values()) if (failed) failing++;
    result.observe(failing);
  });

export function recordAttempt(endpointId: string, result: AttemptResult): void {
  deliveries.add(1, { outcome: result });
  if (result === 'delivered') latest.delete(endpointId);
  else latest.set(endpointId, true);
}
