/** Loaded first by main.ts: telemetry must patch modules before they are required. */
import { startTelemetry } from '@aff/telemetry';

startTelemetry('web');
