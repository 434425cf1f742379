/**
 * A console request walks only the page modules of its section (console-routes.ts): a module
 * filed under the wrong section would never be reached, so each one's paths are checked here,
 * and a request still finds its module whatever the case of its path, as Express routes.
 */
import type { RequestHandler, Router } from 'express';
import pino from 'pino';
import { PAGE_MODULES, type ConsoleDeps } from '../src/console/console-routes';
import type { ConsoleSession } from '../src/console/console-accounts';
import type { PageDeps } from '../src/console/console-pages';
import { buildWebApp } from '../src/pages/web-app';
import { dispatchPage } from '../src/pages/page-dispatch';
import { pageRequestSchema } from '@aff/contracts';

const log = pino({ level: 'silent' });
const pass: RequestHandler = (_req, _res, next) => next();
const never = () => {
  throw new Error('not called in these tests');
};

/** What Express matches of each layer a module registers (`rawPath`, router 2.x). */
const pathsOf = (router: Router) =>
  (router as unknown as { stack: { rawPath?: unknown }[] }).stack.map((layer) => layer.rawPath);

it('files every page module under the section all of its paths are in', () => {
  const deps = { rpc: {}, body: pass, once: pass, publicUrl: 'http://x', log } as never as PageDeps;
  for (const [section, page] of PAGE_MODULES) {
    const root = section ? `/console/${section}` : '/console';
    for (const path of pathsOf(page(deps))) {
      expect(typeof path).toBe('string');
      const inSection = path === root || (section !== '' && String(path).startsWith(`${root}/`));
      if (!inSection) throw new Error(`${String(path)} is not under the section ${root}`);
    }
  }
});

it('reaches a section whatever the case of its path, and answers 404 outside every section', async () => {
  const session: ConsoleSession = {
    token: 't',
    userId: 'u',
    merchantId: 'm',
    email: 'viewer@example.com',
    role: 'viewer',
    csrfToken: 'csrf',
    expiresAt: new Date(Date.now() + 3_600_000),
  };
  const consoleDeps = {
    rpc: { send: never },
    accounts: { session: () => Promise.resolve(session) },
    publicUrl: 'http://localhost',
    log,
  } as never as ConsoleDeps;
  const app = buildWebApp({
    console: consoleDeps,
    portal: { rpc: { send: never }, sessions: {}, publicUrl: 'http://localhost', log } as never,
    log,
  });
  const post = (path: string) =>
    dispatchPage(
      app,
      pageRequestSchema.parse({
        method: 'POST',
        path,
        headers: { cookie: 'aff_console=t', 'content-type': 'application/x-www-form-urlencoded' },
        body: Buffer.from('_csrf=csrf').toString('base64'),
      }),
      'req-1',
    );
  // A viewer's action is refused by the module's own guard: it was routed there.
  for (const path of ['/console/webhooks/w1/disable', '/console/WebHooks/w1/disable']) {
    const reply = await post(path);
    expect(reply.status).toBe(403);
    expect(reply.body).toContain('Your role (viewer) can see the program but not change it.');
  }
  expect((await post('/console/nowhere/w1/disable')).status).toBe(404);
});
