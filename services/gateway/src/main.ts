import './instrument';
import { runUntilSignalled } from '@aff/api';
import { createLogger } from '@aff/logging';
import { stopTelemetry } from '@aff/telemetry';
import { loadGatewayConfig } from './config';
import { startGateway } from './service';

const log = createLogger('gateway');
runUntilSignalled(log, async () => {
  const gateway = await startGateway(loadGatewayConfig(), log);
  return async () => {
    await gateway.stop();
    await stopTelemetry();
  };
});
