/**
 * Single-use console forms: the console's `Idempotency-Key`. Every action form carries a key
 * of its own (components/form-fields.ts). The first post of a key claims it and runs; its answer
 * (status, redirect, page) is kept 24 h for the user and the request. A second post of the same
 * form (double click, back button, a browser or proxy retrying the POST) does not act again:
 * - same request, first one finished: the first answer is replayed (`Idempotent-Replayed`);
 * - same request, first one still running: it waits for that answer, then replays it (409
 *   "still being sent" after `waitMs`);
 * - another request (other ids ticked, another row's button of the same form): 409, nothing
 *   done; a newly loaded page has new keys.
 * A 5xx is not kept (the key is released, so a retry runs again), as at the gateway. The key
 * also names the operations' idempotency seed (console-data.ts), so records a re-run creates
 * get the same ids as the first run's, as a REST retry with the same key does.
 */
import { createHash } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ScopedRepository } from '@aff/mongo';
import type { Logger } from '@aff/logging';
import type { ConsoleFormKeyRecord, ConsoleModels } from './console.schema';
import { consolePage, message, session } from './console-http';
import { FORM_KEY_FIELD } from './components/form-fields';

type Answer = NonNullable<ConsoleFormKeyRecord['answer']>;

export interface FormKeyTiming {
  /** How long a claim holds the key if its request never finishes (the process died). */
  lockMs: number;
  /** How long a repeat waits for the first post's answer before its 409. */
  waitMs: number;
  pollMs: number;
  /** How long an answer is kept (the REST API keeps keys 24 h). */
  keepMs: number;
}

export const FORM_KEY_TIMING: FormKeyTiming = {
  lockMs: 120_000,
  waitMs: 10_000,
  pollMs: 100,
  keepMs: 24 * 3_600_000,
};

const KEY = /^[A-Za-z0-9_-]{16,64}$/;
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** The request a key was used for: path and every field but the CSRF token and the key. */
export function formFingerprint(path: string, body: unknown): string {
  const fields = Object.entries((body ?? {}) as Record<string, unknown>)
    .filter(([name]) => name !== '_csrf' && name !== FORM_KEY_FIELD)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return sha256(JSON.stringify(['POST', path, fields]));
}

export class FormKeys {
  private readonly keys: ScopedRepository<ConsoleFormKeyRecord>;

  constructor(
    models: Pick<ConsoleModels, 'consoleFormKey'>,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.keys = new ScopedRepository(models.consoleFormKey);
  }

  /** True when this request owns the key: new, or a claim whose process died. */
  async claim(
    record: Omit<ConsoleFormKeyRecord, 'answer' | 'created_at' | 'expires_at'>,
    lockMs: number,
  ) {
    const now = this.now();
    const expires_at = new Date(now.getTime() + lockMs);
    if (await this.keys.insertIfAbsent({ ...record, answer: null, created_at: now, expires_at }))
      return true;
    // Taken over only if still unanswered and its claim lapsed, by one request at most.
    const taken = await this.keys.updateOne(
      record.merchant_id,
      { _id: record._id, answer: null, fingerprint: record.fingerprint, expires_at: { $lt: now } },
      { $set: { expires_at } },
    );
    return taken.modified === 1;
  }

  get(merchantId: string, id: string) {
    return this.keys.findById(merchantId, id);
  }

  async complete(merchantId: string, id: string, answer: Answer, keepMs: number) {
    const expires_at = new Date(this.now().getTime() + keepMs);
    await this.keys.updateOne(merchantId, { _id: id }, { $set: { answer, expires_at } });
  }

  async release(merchantId: string, id: string) {
    await this.keys.deleteOne(merchantId, { _id: id, answer: null });
  }
}

/**
 * Marks this request's answer as holding a secret (a portal sign-in link in its redirect): it
 * is not stored, and a repeat gets the "already sent" page instead of a replay.
 */
export const answerHoldsSecret = (res: Response) => {
  res.locals.formAnswerSecret = true;
};

/** The middleware every console action runs after the CSRF and role checks. */
export function singleUseForm(
  keys: FormKeys,
  log: Logger,
  timing: FormKeyTiming = FORM_KEY_TIMING,
): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const sent = (req.body as Record<string, unknown> | undefined)?.[FORM_KEY_FIELD];
    // No key at all: acted on once, unguarded, as a REST call without `Idempotency-Key` is (a
    // script posting the form's CSRF token alone). Every form the console renders has one.
    if (sent === undefined) return next();
    if (typeof sent !== 'string' || !KEY.test(sent)) {
      const text = "This form's key is not one the console gave out.";
      consolePage(
        res,
        400,
        'Form expired',
        message('This form has expired', `${text} Reload the page and try again.`),
      );
      return;
    }
    const { merchantId, userId } = session(res);
    const path = req.originalUrl.split('?')[0]!;
    const record = {
      _id: sha256(`${userId}:${sent}`),
      merchant_id: merchantId,
      user_id: userId,
      fingerprint: formFingerprint(path, req.body),
      request: `POST ${path}`,
    };
    const deadline = Date.now() + timing.waitMs;
    for (;;) {
      if (await keys.claim(record, timing.lockMs)) break;
      const found = await keys.get(merchantId, record._id);
      if (!found) continue; // released by a 5xx between the two reads: claim again
      if (found.fingerprint !== record.fingerprint) return alreadySent(res, 'another action');
      if (found.answer) return replay(res, found.answer);
      if (Date.now() >= deadline) {
        res.set('Retry-After', '1');
        consolePage(
          res,
          409,
          'Still being sent',
          message(
            'This form is still being sent',
            'Wait a moment, then reload the page to see what it did.',
          ),
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, timing.pollMs));
    }
    res.locals.formSeed = `console:${merchantId}:${record._id}:${record.fingerprint}`;
    keepAnswer(res, keys, record, timing, log);
    next();
  };
}

function replay(res: Response, answer: Answer) {
  if (answer.used_only) return alreadySent(res, 'this action');
  res.status(answer.status).set('Idempotent-Replayed', 'true');
  if (answer.location) res.set('Location', answer.location);
  if (answer.type) res.type(answer.type);
  // The page's inline style and script carry the first answer's CSP nonce; this answer's
  // Content-Security-Policy names a new one, under which the old would be refused.
  const nonce = res.locals.nonce as string | undefined;
  const body =
    answer.body && answer.nonce && nonce
      ? answer.body.split(`nonce="${answer.nonce}"`).join(`nonce="${nonce}"`)
      : (answer.body ?? '');
  res.send(body);
}

function alreadySent(res: Response, what: string) {
  consolePage(
    res,
    409,
    'Form already sent',
    message(
      'This form was already sent',
      `It was used for ${what} and is not sent twice. Reload the page to act again.`,
    ),
  );
}

/** The answer is stored before it is sent, so a repeat that follows it always finds it. */
function keepAnswer(
  res: Response,
  keys: FormKeys,
  record: { _id: string; merchant_id: string },
  timing: FormKeyTiming,
  log: Logger,
) {
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.end = ((...args: unknown[]) => {
    const status = res.statusCode;
    const chunk = args[0];
    const body =
      typeof chunk === 'string'
        ? chunk
        : Buffer.isBuffer(chunk)
          ? chunk.toString('utf8')
          : undefined;
    const location = res.get('Location');
    const type = res.get('Content-Type');
    const answer: Answer = res.locals.formAnswerSecret
      ? { status, used_only: true }
      : {
          status,
          ...(location ? { location } : {}),
          ...(type ? { type } : {}),
          ...(body !== undefined ? { body } : {}),
          ...(typeof res.locals.nonce === 'string' ? { nonce: res.locals.nonce } : {}),
        };
    const saved =
      status >= 500
        ? keys.release(record.merchant_id, record._id)
        : keys.complete(record.merchant_id, record._id, answer, timing.keepMs);
    saved
      .catch((error: unknown) =>
        log.warn(
          { err: (error as Error).message, requestId: res.locals.requestId },
          'console form key: answer not stored',
        ),
      )
      .finally(() => end(...args));
    return res;
  }) as Response['end'];
}
