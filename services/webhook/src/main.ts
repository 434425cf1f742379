import './instrument';
import { createLogger } from '@aff/logging';
import { stopTelemetry } from '@aff/telemetry';
import { runUntilSignalled } from '@aff/api';
import { loadWebhookConfig } from './config';
import { startWebhookService } from './service';

const log = createLogger('webhook');
runUntilSignalled(log, async () => {
  const service = await startWebhookService(loadWebhookConfig(), log);
  return async () => {
    await service.stop();
    await stopTelemetry();
  };
});
