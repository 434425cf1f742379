/** For end-to-end tests of what the services export as traces. */
import { startIsolatedSystem, type IsolatedSystem } from './isolated-system';
import { startOtlpReceiver } from './otlp-receiver';

export interface TracedSystem {
  /** Keeps every span the isolated system's services export. */
  receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  isolated: IsolatedSystem;
}

/**
 * An isolated system exporting its traces (batched every 200 ms; no metrics or logs) to an OTLP
 * receiver of the test file's own, with `env` for its services; started before the file's tests
 * (up to 2 minutes), stopped after them. The fields are set by that `beforeAll`, so read them
 * inside tests and hooks.
 */
export function tracedSystemPerFile(env: NodeJS.ProcessEnv = {}): TracedSystem {
  const traced = {} as TracedSystem;
  beforeAll(async () => {
    traced.receiver = await startOtlpReceiver();
    traced.isolated = await startIsolatedSystem({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: traced.receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: '200',
        OTEL_METRICS_EXPORTER: 'none',
        OTEL_LOGS_EXPORTER: 'none',
        ...env,
      },
    });
  }, 120_000);
  afterAll(async () => {
    await traced.isolated?.stop();
    await traced.receiver?.close();
  });
  return traced;
}
