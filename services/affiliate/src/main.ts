import './instrument';
import { createLogger } from '@aff/logging';
import { stopTelemetry } from '@aff/telemetry';
import { loadAffiliateConfig } from './config';
import { startAffiliateService } from './service';
import { runUntilSignalled } from '@aff/api';

const log = createLogger('affiliate');
runUntilSignalled(log, async () => {
  const service = await startAffiliateService(loadAffiliateConfig(), log);
  return async () => {
    await service.stop();
    await stopTelemetry();
  };
});
