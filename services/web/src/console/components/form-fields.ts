/**
 * The hidden fields every console action form carries: the session's CSRF token and a key of
 * its own, new on every rendering. The key makes the form single use: the server acts on its
 * first post and answers a repeat (double click, back button, a retried POST) with the first
 * answer (../form-keys.ts), as the REST API does with an `Idempotency-Key`.
 */
import { randomUUID } from 'node:crypto';
import { html, type SafeHtml } from '../../portal/html';

/** The form field that carries the key. */
export const FORM_KEY_FIELD = '_key';

export const formFields = (csrf: string): SafeHtml =>
  html`<input type="hidden" name="_csrf" value="${csrf}" />
    <input type="hidden" name="${FORM_KEY_FIELD}" value="${randomUUID()}" />`;
