/**
 * Starts the OpenTelemetry Node SDK. Must run before express, mongoose, ioredis or nats are
 * required, so each service's `main.ts` imports `@aff/telemetry/register` (via `./instrument`)
 * on its first line. Without OTEL_EXPORTER_OTLP_ENDPOINT spans are created (so trace context
 * still flows through logs and NATS headers) but not exported.
 */
import { NodeSDK } from '@opentelemetry/sdk-node';
import { getNodeAutoInstrumentations } from '@opentelemetry/auto-instrumentations-node';
import type { Span } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { PeriodicExportingMetricReader, type IMetricReader } from '@opentelemetry/sdk-metrics';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { RedactingSpanExporter } from './redact';

export { redactUrl, REDACTED, CLIENT_ADDRESS_ATTRIBUTES, URL_ATTRIBUTES } from './redact';

let sdk: NodeSDK | undefined;
let prometheus: PrometheusExporter | undefined;

export interface TelemetryOptions {
  /**
   * Whether the process's Express app answers HTTP requests from a socket (the gateway): its
   * HTTP server metrics are labelled with the Express route. The web service's app runs
   * in-process behind `renderPage`, with no HTTP server span to name: there, without an
   * exporter, the Express instrumentation would only wrap every layer a page request passes.
   */
  expressServesHttp?: boolean;
}

export function startTelemetry(defaultServiceName: string, opts: TelemetryOptions = {}): void {
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
    // Client addresses and secrets in URLs never leave the process (./redact.ts).
    ...(exporting ? { traceExporter: new RedactingSpanExporter(new OTLPTraceExporter()) } : {}),
    metricReaders,
    instrumentations: [
      skipUnrecordedMongoSpans(
        getNodeAutoInstrumentations(
          instrumentationConfig(exporting, opts.expressServesHttp ?? true),
        ),
      ),
    ],
  });
  sdk.start();
}

/**
 * Which auto-instrumentations run. Without an exporter no span is ever recorded, so the leaf
 * spans of Redis calls and Express layers would be built only to be dropped: not built then. What
 * carries trace context stays on in both modes: incoming HTTP (a caller's `traceparent` is
 * continued), our own NATS spans and headers (libs/messaging) and webhook delivery spans, trace
 * ids in the logs (pino), and MongoDB's, whose pool metrics `/metrics` serves (its spans:
 * below). Outgoing HTTP client spans are kept only with an exporter.
 */
export function instrumentationConfig(exporting: boolean, expressServesHttp: boolean) {
  return {
    // File-system and DNS spans drown the request spans an SRE actually follows.
    '@opentelemetry/instrumentation-fs': { enabled: false },
    '@opentelemetry/instrumentation-dns': { enabled: false },
    '@opentelemetry/instrumentation-net': { enabled: false },
    // The driver's spans (instrumentation-mongodb) already show every database command;
    // mongoose's would double each one, at about 8% of a consumer's CPU in a drain.
    '@opentelemetry/instrumentation-mongoose': { enabled: false },
    // Express 5 routes through the `router` package: its layer spans repeat express's.
    '@opentelemetry/instrumentation-router': { enabled: false },
    // Outgoing requests are webhook deliveries, which carry their own span and `traceparent`.
    '@opentelemetry/instrumentation-http': { disableOutgoingRequestInstrumentation: !exporting },
    // Express names the route on the HTTP server metrics (`http_route`), so it always runs;
    // without an exporter every layer is "ignored": the route is still named, no span built.
    // A process whose app serves no socket has no route to name: off unless spans are exported.
    '@opentelemetry/instrumentation-express': exporting
      ? {}
      : expressServesHttp
        ? { ignoreLayersType: EVERY_LAYER }
        : { enabled: false },
    '@opentelemetry/instrumentation-ioredis': { enabled: exporting },
  };
}

type Instrumentation = ReturnType<typeof getNodeAutoInstrumentations>[number];
type ExpressConfig = NonNullable<
  NonNullable<
    Parameters<typeof getNodeAutoInstrumentations>[0]
  >['@opentelemetry/instrumentation-express']
>;
/** The values of the instrumentation's `ExpressLayerType` enum (not a dependency of ours). */
const EVERY_LAYER = ['router', 'middleware', 'request_handler'] as unknown as NonNullable<
  ExpressConfig['ignoreLayersType']
>;

/**
 * The MongoDB instrumentation builds each command's span (its attributes include the serialized
 * command) even when that span cannot be recorded, about a tenth of a consumer's CPU. Under the
 * parent-based samplers used here (the SDK's default, and `parentbased_always_off` without an
 * exporter) a span under an unrecorded parent is never recorded, so it is skipped; its pool
 * metrics are unaffected. The hook is the instrumentation's own skip check (pinned version);
 * if a later version drops it, every span is built again, which is slower but still correct.
 */
function skipUnrecordedMongoSpans(instrumentations: Instrumentation[]): Instrumentation[] {
  const mongodb = instrumentations.find(
    (i) => i.instrumentationName === '@opentelemetry/instrumentation-mongodb',
  ) as (Instrumentation & { _checkSkipInstrumentation?: unknown }) | undefined;
  if (mongodb && typeof mongodb._checkSkipInstrumentation === 'function') {
    mongodb._checkSkipInstrumentation = (parent: Span | undefined) => !parent?.isRecording();
  }
  return instrumentations;
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
