/**
 * The web service's complete RPC table: what its definition hands to the kernel, and what
 * test/contract/contract-map.test.ts checks against the contract map. One operation: every page
 * request the gateway forwards, run through the pages' Express app.
 */
import type { Express } from 'express';
import type { RpcHandlers } from '@aff/messaging';
import { dispatchPage } from '../pages/page-dispatch';

export function webRpcTable(app: Express): RpcHandlers<'web'> {
  return { renderPage: (request, ctx) => dispatchPage(app, request, ctx.requestId) };
}
