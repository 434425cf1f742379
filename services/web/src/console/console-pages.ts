/**
 * The console's pages: the navigation every page shows, and how a page module is registered.
 *
 * A page is one module exporting a `PageModule` (a function of `PageDeps` returning an Express
 * router with its GET page and its POST actions under its own path). To add one: write the
 * module, add it to PAGE_MODULES in ./console-routes.ts under the section its paths are in (a
 * request walks only its section's modules), and (for a top-level section) make sure its path is
 * in CONSOLE_NAV. Each action route is guarded by `...ownerAction(body, once)` (body,
 * CSRF, role, single-use key, in that order: ./console-http.ts); data goes through
 * `consoleCalls(rpc, res)` (./console-data.ts); lists use the data table
 * (./components/data-table.ts); a one-button action form is `actionForm()`
 * (./components/action-form.ts).
 */
import type { RequestHandler, Router } from 'express';
import type { Logger } from '@aff/logging';
import type { RpcClient } from '@aff/messaging';
import { html, type SafeHtml } from '../portal/html';
import type { ProgramHistory } from './program-history';

export interface PageDeps {
  rpc: RpcClient;
  /** The form body parser every POST route puts first. */
  body: RequestHandler;
  publicUrl: string;
  log: Logger;
  /** The overview's daily readings of the program's totals. */
  history: ProgramHistory;
  /**
   * The single-use form check (form-keys.ts): every action route puts it after `requireOwner`,
   * so a form posted twice acts once.
   */
  once: RequestHandler;
}

export type PageModule = (deps: PageDeps) => Router;

/** The sections, in the order the navigation shows them. */
export const CONSOLE_NAV = [
  { path: '/console', text: 'Overview' },
  { path: '/console/affiliates', text: 'Affiliates' },
  { path: '/console/referrals', text: 'Referrals' },
  { path: '/console/reviews', text: 'Review queue' },
  { path: '/console/commissions', text: 'Commissions' },
  { path: '/console/payouts', text: 'Payouts' },
  { path: '/console/webhooks', text: 'Webhooks' },
  { path: '/console/campaigns', text: 'Campaigns' },
] as const;

/** The section a path belongs to: `/console` exactly, or the longest section prefix. */
export function sectionOf(path: string): string | undefined {
  const clean = path.replace(/\/+$/, '') || '/';
  if (clean === '/console') return '/console';
  return CONSOLE_NAV.map((s) => s.path)
    .filter((p) => p !== '/console' && (clean === p || clean.startsWith(`${p}/`)))
    .sort((a, b) => b.length - a.length)[0];
}

export function consoleNav(currentPath: string): SafeHtml {
  const current = sectionOf(currentPath);
  return html`<nav class="site" aria-label="Console">
    ${CONSOLE_NAV.map(
      (s) =>
        html`<a href="${s.path}" ${s.path === current ? html`aria-current="page"` : ''}
          >${s.text}</a
        >`,
    )}
  </nav>`;
}
