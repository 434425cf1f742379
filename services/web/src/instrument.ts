/** Loaded first by main.ts: telemetry must patch modules before they are required. */
import { startTelemetry } from '@aff/telemetry';

// Its Express app answers `renderPage` in-process, never a socket (./pages/page-dispatch.ts).
startTelemetry('web', { expressServesHttp: false });
