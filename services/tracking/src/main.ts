import './instrument';
import { runUntilSignalled } from '@aff/api';
import { createLogger } from '@aff/logging';
import { stopTelemetry } from '@aff/telemetry';
import { loadTrackingConfig } from './config';
import { startTrackingService } from './service';

const log = createLogger('tracking');
runUntilSignalled(log, async () => {
  const service = await startTrackingService(loadTrackingConfig(), log);
  return async () => {
    await service.stop();
    await stopTelemetry();
  };
});
