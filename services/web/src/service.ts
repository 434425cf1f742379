/**
 * The web service: the pages people use (the affiliate portal and the merchant console).
 * It owns sessions and console users only; every read and action goes to the owning service's operations. The
 * gateway hands it each page request over NATS (`renderPage`), answered by an Express app that
 * runs in-process, with no socket of its own (./pages/page-dispatch.ts).
 */
import { defineService } from '@aff/kernel';
import { RpcClient } from '@aff/messaging';
import { retentionJob } from '@aff/mongo';
import type { Connection } from 'mongoose';
import { configSchema, loadWebConfig } from './config';
import { ConsoleAccounts } from './console/console-accounts';
import { consoleMailer } from './console/console-mailer';
import { consoleModels } from './console/console.schema';
import { FormKeys } from './console/form-keys';
import { SIGN_IN_WINDOW_MS, SignInLimiter } from './console/sign-in-limiter';
import { inviteHandler } from './console/invite.rpc';
import { KEEP_DAYS, ProgramHistory, statDayModel } from './console/program-history';
import { statReadingsJob } from './console/stat-readings.job';
import { buildWebApp } from './pages/web-app';
import { webRpcTable } from './rpc/rpc-table';
import { portalSessionModel } from './portal/portal-session.schema';
import { PortalSessions } from './portal/portal-sessions';

const webModels = (mongo: Connection) => ({
  portalSession: portalSessionModel(mongo),
  ...consoleModels(mongo),
  consoleStatDay: statDayModel(mongo),
});

export const webService = defineService({
  name: 'web',
  configSchema,
  loadConfig: loadWebConfig,
  models: webModels,
  outbox: () => [],
  build: ({ config, log, nc, models }) => {
    const rpc = new RpcClient(nc, config.RPC_TIMEOUT_MS);
    const accounts = new ConsoleAccounts(models);
    const mailer = consoleMailer(config);
    const history = new ProgramHistory(models.consoleStatDay);
    const app = buildWebApp({
      console: {
        rpc,
        accounts,
        mailer,
        publicUrl: config.PUBLIC_URL,
        signInLimiter: new SignInLimiter(
          models.consoleSignInCount,
          config.CONSOLE_SIGN_IN_PER_EMAIL,
          SIGN_IN_WINDOW_MS,
        ),
        log,
        history,
        formKeys: new FormKeys(models),
      },
      portal: {
        rpc,
        sessions: new PortalSessions(models.portalSession, config.PORTAL_SESSION_HOURS * 3_600_000),
        publicUrl: config.PUBLIC_URL,
        log,
      },
      log,
    });
    return {
      rpc: webRpcTable(app, inviteHandler({ accounts, mailer, publicUrl: config.PUBLIC_URL })),
      intervals: [
        // Expired sessions go (expiry is also checked on every read; docs/retention.md).
        retentionJob(
          [
            { model: models.portalSession, field: 'expires_at', keepMs: 0 },
            { model: models.consoleSession, field: 'expires_at', keepMs: 0 },
            { model: models.consoleLink, field: 'expires_at', keepMs: 0 },
            { model: models.consoleFormKey, field: 'expires_at', keepMs: 0 },
            { model: models.consoleSignInCount, field: 'expires_at', keepMs: 0 },
            { model: models.consoleStatDay, field: 'at', keepMs: KEEP_DAYS * 86_400_000 },
          ],
          config.RETENTION_PRUNE_MS,
        ),
        statReadingsJob(rpc, models.consoleUser, history),
      ],
    };
  },
});
