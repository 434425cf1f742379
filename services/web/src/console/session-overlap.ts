/**
 * A console page view reads its session from the database before anything else, and that read
 * (about a millisecond, more under load) came before the page's own calls to the owning
 * services. This module lets the two overlap without trusting anything the database has not
 * just confirmed:
 *
 * - `KnownSessions` remembers, in this process only, the sessions this replica has read from the
 *   database, keyed by the hash of their cookie value. Only a read from the database adds one.
 * - For a page view (GET or HEAD) whose cookie is known, the page starts at once with the known
 *   session, while the session is read again, as on every request (`holdUntilChecked`). The
 *   page's answer is held until that read is done, and sent only if it found the same live
 *   session (same user, merchant, role, CSRF token). Otherwise every header and byte the page
 *   produced is dropped and the request is answered as one without a session would be.
 *
 * So sign-out, a role change (which ends the user's sessions) and the 12 h idle expiry take
 * effect on every replica at the next request, as before: nothing is answered from memory.
 * What a cookie that just died can still do is make this replica start one page's reads for
 * the merchant it belonged to; their result is thrown away. Actions (every other method) never
 * start before their session is read.
 */
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { ConsoleSession } from './console-accounts';

/** Sessions remembered per process: far more than one replica serves at once. */
const KNOWN_MAX = 10_000;

const keyOf = (token: string) => createHash('sha256').update(token).digest('hex');

export class KnownSessions {
  private readonly byKey = new Map<string, ConsoleSession>();

  constructor(private readonly max = KNOWN_MAX) {}

  get(token: string | undefined): ConsoleSession | undefined {
    return token ? this.byKey.get(keyOf(token)) : undefined;
  }

  /** Records a session the database just returned (the newest read replaces the older). */
  remember(session: ConsoleSession): void {
    const key = keyOf(session.token);
    this.byKey.delete(key);
    this.byKey.set(key, session);
    // A Map iterates in insertion order: the first key is the one read longest ago.
    if (this.byKey.size > this.max) this.byKey.delete(this.byKey.keys().next().value!);
  }

  forget(token: string | undefined): void {
    if (token) this.byKey.delete(keyOf(token));
  }
}

/** Whether the session the database returned is the one the page was started with. */
export function sameSession(found: ConsoleSession, known: ConsoleSession): boolean {
  return (
    found.token === known.token &&
    found.userId === known.userId &&
    found.merchantId === known.merchantId &&
    found.email === known.email &&
    found.role === known.role &&
    found.csrfToken === known.csrfToken
  );
}

export interface CheckOutcome {
  /** The session was confirmed: last changes to the answer (the cookie's expiry). */
  confirmed(found: ConsoleSession): void;
  /**
   * The page's answer was dropped: answer as the request deserved (no session, another
   * session, or the read failed). The response is as it was when the page began.
   */
  refused(found: ConsoleSession | null, error?: unknown): void;
}

/**
 * Holds whatever the page sends until `check` settles, then lets it through or drops it.
 * Call before handing the request on to the page. Pages answer with `res.end` (Express's
 * `send`, `json`, `redirect` all end there); a `write` before it is held the same way.
 */
export function holdUntilChecked(
  res: Response,
  check: Promise<ConsoleSession | null>,
  known: ConsoleSession,
  outcome: CheckOutcome,
): void {
  const end = res.end;
  const write = res.write;
  const statusBefore = res.statusCode;
  const headersBefore = res.getHeaders();
  const written: unknown[][] = [];
  // Settled here, not when the page ends: a failed read must not wait unhandled meanwhile.
  const verdict = check.then(
    (found) => ({ found, error: undefined as unknown }),
    (error: unknown) => ({ found: null, error }),
  );

  const restore = () => {
    res.end = end;
    res.write = write;
  };
  res.write = ((...args: unknown[]) => {
    written.push(args);
    return true;
  }) as typeof res.write;
  res.end = ((...args: unknown[]) => {
    restore();
    void verdict.then(({ found, error }) => {
      try {
        if (found && sameSession(found, known)) {
          outcome.confirmed(found);
          for (const chunk of written) Reflect.apply(write, res, chunk);
          Reflect.apply(end, res, args);
          return;
        }
        dropAnswer(res, statusBefore, headersBefore);
        outcome.refused(found, error);
      } catch {
        // Nothing of the page goes out; the request still gets an answer.
        dropAnswer(res, statusBefore, headersBefore);
        res.statusCode = 503;
        Reflect.apply(end, res, []);
      }
    });
    return res;
  }) as typeof res.end;
}

/** Puts the response back as it was before the page ran: its status and headers. */
function dropAnswer(
  res: Response,
  status: number,
  headers: ReturnType<Response['getHeaders']>,
): void {
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) res.setHeader(name, value);
  }
  res.statusCode = status;
  res.locals.console = undefined;
}

/** A page view: the only requests started before their session is confirmed. */
export const isPageView = (req: Request) => req.method === 'GET' || req.method === 'HEAD';
