/**
 * A console action: one POST form holding one submit button (Turn off, Redeliver, Mark paid,
 * Complete, Generate payouts, an affiliate's actions). Written once here so that every such
 * form carries the CSRF token and a single-use key of its own (./form-fields.ts: a new key each
 * call, so two buttons on a page never share one) and names what its button acts on.
 */
import { html, type SafeHtml } from '../../portal/html';
import { formFields } from './form-fields';

export interface ActionFormOptions {
  /** Where the form posts. */
  action: string;
  csrf: string;
  /** The button's visible text. */
  text: string;
  /**
   * What the button acts on, for screen readers only (`Turn off <span class="sr">url</span>`):
   * a table has one button per row with the same text, so the text alone does not say which.
   */
  label?: string;
  /** More hidden fields: the list's state (so the redirect returns to it), `from`. */
  hidden?: SafeHtml;
  /** The page's main action: a filled button, not the outlined `secondary` one. */
  primary?: boolean;
  /** A form of its own line (in an `.actions` row) rather than inline beside other content. */
  block?: boolean;
}

const label = (o: ActionFormOptions) => (o.label ? html` <span class="sr">${o.label}</span>` : '');

export function actionForm(o: ActionFormOptions): SafeHtml {
  return html`<form ${o.block ? '' : html`class="inline"`} method="post" action="${o.action}">
    ${formFields(o.csrf)} ${o.hidden ?? ''}
    <button type="submit" ${o.primary ? '' : html`class="secondary"`}>${o.text}${label(o)}</button>
  </form>`;
}
