/**
 * The console's session gate with the overlap (src/console/session-overlap.ts): a page view
 * whose session this replica read before starts beside the session's read, and nothing of it
 * goes out unless that read confirms the same live session. The accounts here answer when the
 * test says so, to order the page against the read; the real sessions are covered through the
 * gateway in test/console.e2e.test.ts.
 */
import express from 'express';
import { pageRequestSchema } from '@aff/contracts';
import { createLogger } from '@aff/logging';
import { dispatchPage } from '../src/pages/page-dispatch';
import { requireConsoleSession, session } from '../src/console/console-http';
import type { ConsoleAccounts, ConsoleSession } from '../src/console/console-accounts';
import { KnownSessions } from '../src/console/session-overlap';

const TOKEN = 'cookie-value-0123456789';

const live = (over: Partial<ConsoleSession> = {}): ConsoleSession => ({
  token: TOKEN,
  userId: 'user-1',
  merchantId: 'merchant-1',
  email: 'owner@example.com',
  role: 'owner',
  csrfToken: 'csrf-1',
  expiresAt: new Date(Date.now() + 3_600_000),
  ...over,
});

/** Session reads the test settles by hand, in the order they were asked. */
class ControlledAccounts {
  readonly reads: {
    resolve: (s: ConsoleSession | null) => void;
    reject: (e: Error) => void;
  }[] = [];

  session(): Promise<ConsoleSession | null> {
    return new Promise((resolve, reject) => this.reads.push({ resolve, reject }));
  }
}

function system() {
  const accounts = new ControlledAccounts();
  const events: string[] = [];
  const app = express();
  app.use(
    '/console',
    requireConsoleSession({
      accounts: accounts as unknown as ConsoleAccounts,
      publicUrl: 'http://localhost',
      log: createLogger('web-test', 'silent'),
    }),
  );
  app.get('/console/secret', (_req, res) => {
    events.push(`page started for ${session(res).merchantId}`);
    res.append('Set-Cookie', 'page=1; Path=/console');
    res
      .status(200)
      .type('html')
      .send(`<p>figures of ${session(res).merchantId}</p>`);
  });
  app.post('/console/act', (_req, res) => {
    events.push('action ran');
    res.status(200).send('done');
  });
  const view = (method: 'GET' | 'POST', path: string) =>
    dispatchPage(
      app,
      pageRequestSchema.parse({
        method,
        path,
        query: '',
        headers: { cookie: `aff_console=${TOKEN}` },
        body: '',
        secure: false,
      }),
      'req-1',
    );
  /** Lets the request run until it waits (on the read or the held answer). */
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { accounts, events, view, settle };
}

async function seenOnce(s: ReturnType<typeof system>) {
  const first = s.view('GET', '/console/secret');
  await s.settle();
  // Not seen before: the page waits for the read.
  expect(s.events).toEqual([]);
  s.accounts.reads[0]!.resolve(live());
  expect((await first).status).toBe(200);
  expect(s.events).toEqual(['page started for merchant-1']);
}

it('starts a page of a session it has read before beside the read, and holds its answer until the read confirms it', async () => {
  const s = system();
  await seenOnce(s);
  let answered = false;
  const second = s.view('GET', '/console/secret').then((reply) => {
    answered = true;
    return reply;
  });
  await s.settle();
  expect(s.events).toHaveLength(2);
  expect(s.accounts.reads).toHaveLength(2);
  expect(answered).toBe(false);
  s.accounts.reads[1]!.resolve(live());
  const reply = await second;
  expect(reply.status).toBe(200);
  expect(reply.body).toBe('<p>figures of merchant-1</p>');
  expect(reply.headers['set-cookie']).toContain('page=1; Path=/console');
});

it('drops the whole page when the session ended meanwhile (sign-out on another replica): sign-in, cookie cleared', async () => {
  const s = system();
  await seenOnce(s);
  const second = s.view('GET', '/console/secret');
  await s.settle();
  expect(s.events).toHaveLength(2);
  s.accounts.reads[1]!.resolve(null);
  const reply = await second;
  expect(reply.status).toBe(303);
  expect(reply.headers.location).toBe('/console/sign-in');
  expect(reply.body).not.toContain('figures');
  // The page's own cookie is dropped with it; only the clearing of the session cookie goes.
  expect(reply.headers['set-cookie']).toMatch(/^aff_console=; Path=\/console; Max-Age=0/);
  expect(reply.headers['content-type']).not.toMatch(/html/);
  // Forgotten: the next view waits for its read again.
  const third = s.view('GET', '/console/secret');
  await s.settle();
  expect(s.events).toHaveLength(2);
  s.accounts.reads[2]!.resolve(null);
  expect((await third).status).toBe(303);
});

it('drops the page when the read finds another session for the cookie, and views it again', async () => {
  const s = system();
  await seenOnce(s);
  const second = s.view('GET', '/console/secret');
  await s.settle();
  s.accounts.reads[1]!.resolve(live({ role: 'viewer', csrfToken: 'csrf-2' }));
  const reply = await second;
  expect(reply.status).toBe(303);
  expect(reply.headers.location).toBe('/console/secret');
  expect(reply.body).not.toContain('figures');
});

it('answers 503 without the page when the session read fails', async () => {
  const s = system();
  await seenOnce(s);
  const second = s.view('GET', '/console/secret');
  await s.settle();
  s.accounts.reads[1]!.reject(new Error('database down'));
  const reply = await second;
  expect(reply.status).toBe(503);
  expect(reply.body).toContain('Console unavailable');
  expect(reply.body).not.toContain('figures');
});

it('never starts an action before its session is read, even for a session it knows', async () => {
  const s = system();
  await seenOnce(s);
  const post = s.view('POST', '/console/act');
  await s.settle();
  expect(s.events).toEqual(['page started for merchant-1']);
  s.accounts.reads[1]!.resolve(null);
  const reply = await post;
  expect(reply.status).toBe(401);
  expect(s.events).toEqual(['page started for merchant-1']);
});

it('remembers a bounded number of sessions, dropping the one read longest ago', () => {
  const known = new KnownSessions(2);
  known.remember(live({ token: 'a' }));
  known.remember(live({ token: 'b' }));
  known.remember(live({ token: 'a' }));
  known.remember(live({ token: 'c' }));
  expect(known.get('a')?.token).toBe('a');
  expect(known.get('b')).toBeUndefined();
  expect(known.get('c')?.token).toBe('c');
});
