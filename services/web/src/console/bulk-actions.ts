/**
 * Bulk actions: one per-item operation (the REST API's) run for each chosen id, so every item
 * has the API's effects, events and webhooks, and one item's refusal never stops the others.
 * The page then says what was done and, by name or id, what was not and why.
 */
import express from 'express';
import { html, type SafeHtml } from '../portal/html';
import { ConsoleReplyError } from './console-data';

/** At most a page of the largest size the lists allow. */
export const MAX_BULK_ITEMS = 100;

/**
 * The body parser of a bulk form's routes (its row buttons post the same form): a page of
 * ticked `ids`, the token, the list's state, the action and a note, more than the console's
 * default parser takes.
 */
export const bulkBody = express.urlencoded({
  extended: false,
  limit: '16kb',
  parameterLimit: MAX_BULK_ITEMS + 20,
});

const ID = /^[A-Za-z0-9-]{1,64}$/;

export interface Chosen {
  ids: string[];
  /** Sent values that cannot be an id: reported, never sent to a service. */
  malformed: string[];
}

/** The ids a form sent (`ids`, one or repeated), de-duplicated, in the order sent. */
export function chosenIds(body: unknown, field = 'ids'): Chosen {
  const sent = (body ?? {}) as Record<string, unknown>;
  const raw = [sent[field]].flat().filter((v): v is string => typeof v === 'string' && v !== '');
  const unique = [...new Set(raw)].slice(0, MAX_BULK_ITEMS);
  return {
    ids: unique.filter((id) => ID.test(id)),
    malformed: unique.filter((id) => !ID.test(id)).map((id) => id.slice(0, 64)),
  };
}

export interface ItemFailure {
  id: string;
  /** Who or what the item is, for a person (e.g. the affiliate's name); the id when unknown. */
  label: string;
  reason: string;
}

export interface BulkOutcome {
  done: string[];
  failed: ItemFailure[];
  /** A service did not answer (the rest were not tried). */
  outage: boolean;
}

/**
 * Runs `each` for every id, a few at a time (a page's worth must not flood one service).
 * A 4xx refusal is that item's failure. An outage (5xx, timeout) stops the run: that item and
 * the ones not yet started are reported as not done, with what was done before.
 */
export async function runEach(
  chosen: Chosen,
  each: (id: string) => Promise<void>,
  describe: (id: string) => Promise<string> = (id) => Promise.resolve(id),
  concurrency = 4,
): Promise<BulkOutcome> {
  const outcome: BulkOutcome = {
    done: [],
    failed: chosen.malformed.map((id) => ({ id, label: id, reason: 'Not an id.' })),
    outage: false,
  };
  const queue = [...chosen.ids];
  const worker = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      if (outcome.outage) {
        outcome.failed.push({ id, label: id, reason: UNAVAILABLE });
        continue;
      }
      try {
        await each(id);
        outcome.done.push(id);
      } catch (error) {
        if (!(error instanceof ConsoleReplyError)) {
          outcome.outage = true;
          outcome.failed.push({ id, label: id, reason: UNAVAILABLE });
          continue;
        }
        const reason = [error.message, ...error.details].join(' ');
        outcome.failed.push({ id, label: await describe(id).catch(() => id), reason });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
  return outcome;
}

const UNAVAILABLE = 'Not done: the service did not answer. Try again.';

/** 200 when anything was done; else 503 after an outage, 422 when every item was refused. */
export function bulkStatus(outcome: BulkOutcome): number {
  if (outcome.done.length > 0 || outcome.failed.length === 0) return 200;
  return outcome.outage ? 503 : 422;
}

/** What was done and what was not, for the top of the list page (a live region). */
export function bulkReport(outcome: BulkOutcome, doneText: (count: number) => string): SafeHtml {
  const { done, failed } = outcome;
  return html`<div role="status">
    ${done.length ? html`<p class="notice">${doneText(done.length)}</p>` : ''}
    ${
      failed.length
        ? html`<div class="error">
            <p>
              ${failed.length === 1 ? '1 item was' : `${failed.length} items were`} not changed:
            </p>
            <ul class="failures">
              ${failed.map(
                (f) =>
                  html`<li data-id="${f.id}">
                    <strong>${f.label}</strong>${f.label === f.id ? '' : html` (${f.id})`}:
                    ${f.reason}
                  </li>`,
              )}
            </ul>
          </div>`
        : ''
    }
  </div>`;
}
