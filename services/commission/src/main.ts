import './instrument';
import { runUntilSignalled } from '@aff/api';
import { createLogger } from '@aff/logging';
import { stopTelemetry } from '@aff/telemetry';
import { loadCommissionConfig } from './config';
import { startCommissionService } from './service';

const log = createLogger('commission');
runUntilSignalled(log, async () => {
  const service = await startCommissionService(loadCommissionConfig(), log);
  return async () => {
    await service.stop();
    await stopTelemetry();
  };
});
