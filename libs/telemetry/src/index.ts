/**
 * Starts the OpenTelemetry Node SDK. Must run before express, mongoose, ioredis or nats are
 * required, so each service's `main.ts` imports `@aff/telemetry/register` (via `./instrument`)
 * on its first line. Without OTEL_EXPORTER_OTLP_ENDPOINT spans are created (so trace context
 * still flows through logs and NATS headers) but not exported.
 */
import { NodeSDK } from '@opentelemetry/sdk-node';
import { getNodeAutoInstrumentations } from '@opentelemetry/auto-instrumentations-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { PeriodicExportingMetricReader, type IMetricReader } from '@opentelemetry/sdk-metrics';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

let sdk: NodeSDK | undefined;
let prometheus: PrometheusExporter | undefined;

export function startTelemetry(defaultServiceName: string): void {
  if (sdk || process.env.OTEL_SDK_DISABLED === 'true') return;
  const serviceName = process.env.OTEL_SERVICE_NAME ?? defaultServiceName;
  const exporting = Boolean(
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
  );
  // Spans nobody exports still cost CPU on every request and message (measured: about half of
  // a visit's). Without an exporter they are not recorded unless a sampler is set explicitly;
  // trace ids still propagate (NATS headers, logs), only unsampled.
  if (!exporting && !process.env.OTEL_TRACES_SAMPLER)
    process.env.OTEL_TRACES_SAMPLER = 'parentbased_always_off';
  // Unset, the SDK defaults metrics and logs to OTLP on localhost:4318; with nobody there,
  // shutdown spent ~8 s retrying the final export, which made every service slow to stop.
  if (!process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
    if (!process.env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT)
      process.env.OTEL_METRICS_EXPORTER ??= 'none';
    if (!process.env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT) process.env.OTEL_LOGS_EXPORTER ??= 'none';
  }
  // Metrics are always scraped from `/metrics` on the health port (Prometheus text, pulled, so
  // nothing is spent when nobody scrapes) and pushed over OTLP when a collector is configured.
  prometheus = new PrometheusExporter({ preventServerStart: true });
  const metricReaders: IMetricReader[] = [prometheus];
  const metricsOtlp =
    (process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? process.env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT) &&
    process.env.OTEL_METRICS_EXPORTER !== 'none';
  if (metricsOtlp)
    metricReaders.push(new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter() }));
  sdk = new NodeSDK({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }),
    ...(exporting ? { traceExporter: new OTLPTraceExporter() } : {}),
    metricReaders,
    instrumentations: [
      getNodeAutoInstrumentations({
        // File-system and DNS spans drown the request spans an SRE actually follows.
        '@opentelemetry/instrumentation-fs': { enabled: false },
        '@opentelemetry/instrumentation-dns': { enabled: false },
        '@opentelemetry/instrumentation-net': { enabled: false },
        // The driver's spans (instrumentation-mongodb) already show every database command;
        // mongoose's would double each one, at about 8% of a consumer's CPU in a drain.
        '@opentelemetry/instrumentation-mongoose': { enabled: false },
      }),
    ],
  });
  sdk.start();
}

/** Serves the metrics in Prometheus text format; undefined when telemetry is off. */
export function metricsHandler():
  ((req: IncomingMessage, res: ServerResponse) => void) | undefined {
  const exporter = prometheus;
  return exporter && ((req, res) => exporter.getMetricsRequestHandler(req, res));
}

/** Flushes what is buffered, giving up after `timeoutMs` (an unreachable collector must not stall shutdown). */
export async function stopTelemetry(timeoutMs = 1_000): Promise<void> {
  const stopping = sdk?.shutdown().catch(() => undefined);
  sdk = undefined;
  prometheus = undefined;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    stopping,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
}
