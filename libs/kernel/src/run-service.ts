/**
 * A service process's `main`: reads the configuration, starts the service, and stops it (then
 * telemetry) on SIGINT/SIGTERM. A bad setting or an unreachable server exits non-zero.
 */
import { runUntilSignalled } from '@aff/api';
import { loadConfig } from '@aff/config';
import type { ServiceName } from '@aff/contracts';
import { createLogger } from '@aff/logging';
import { stopTelemetry } from '@aff/telemetry';
import type { z } from 'zod';
import type { KernelConfig, Models, ServiceDefinition, ServiceEntries } from './definition';
import { startService } from './start-service';

export function runService<
  S extends ServiceName,
  Schema extends z.ZodObject,
  M extends Models,
  W extends ServiceEntries<S>,
>(definition: ServiceDefinition<S, Schema, M, W>): void {
  const log = createLogger(definition.name);
  runUntilSignalled(log, async () => {
    const config = definition.loadConfig
      ? definition.loadConfig(process.env)
      : loadConfig(definition.configSchema, process.env);
    const service = await startService(definition, config as z.infer<Schema> & KernelConfig, log);
    return async () => {
      await service.stop();
      await stopTelemetry();
    };
  });
}
