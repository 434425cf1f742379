/** Side-effect entry: `import '@aff/telemetry/dist/register'` first thing in a main module. */
import { startTelemetry } from './index';

startTelemetry(process.env.OTEL_SERVICE_NAME ?? 'affiliate-platform');
