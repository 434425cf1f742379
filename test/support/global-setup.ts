/**
 * Starts real servers and the whole system (gateway + services as processes) once for the
 * run. Tests find it through environment variables; service logs go to `.local/test-logs`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startInfra, startSystem } from '@aff/devstack';
import { startSmtpSink } from './smtp-sink';

export default async function globalSetup(): Promise<void> {
  const logDir = path.resolve(__dirname, '../../.local/test-logs');
  fs.rmSync(logDir, { recursive: true, force: true });
  fs.mkdirSync(logDir, { recursive: true });
  const infra = await startInfra({ log: (line) => process.stderr.write(`[infra] ${line}\n`) });
  // The affiliate service mails through a real SMTP server; tests read what arrives.
  const smtp = await startSmtpSink(path.resolve(__dirname, '../../.local/test-mail'));
  const system = await startSystem({
    infra,
    logDir,
    env: {
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
      OTEL_SDK_DISABLED: process.env.OTEL_SDK_DISABLED,
      SMTP_URL: smtp.url,
    },
  });
  Object.assign(process.env, {
    MONGO_URL: infra.mongoUrl,
    NATS_URL: infra.natsUrl,
    REDIS_URL: infra.redisUrl,
    GATEWAY_URL: system.gatewayUrl,
    GATEWAY_OPS_URL: system.gatewayOpsUrl,
    AFF_TEST_LOG_DIR: logDir,
    AFF_TEST_MAIL_DIR: smtp.dir,
  });
  (globalThis as Record<string, unknown>).__AFF_STACK__ = { infra, system, smtp };
}
