import './instrument';
import { createLogger } from '@aff/logging';
import { stopTelemetry } from '@aff/telemetry';
import { runUntilSignalled } from '@aff/api';
import { loadPayoutConfig } from './config';
import { startPayoutService } from './service';

const log = createLogger('payout');
runUntilSignalled(log, async () => {
  const service = await startPayoutService(loadPayoutConfig(), log);
  return async () => {
    await service.stop();
    await stopTelemetry();
  };
});
