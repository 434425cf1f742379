/**
 * The web service's complete RPC table: what its definition hands to the kernel, and what
 * test/contract/contract-map.test.ts checks against the contract map. Every page request the
 * gateway forwards, run through the pages' Express app; and the operator CLI's console invites.
 */
import type { Express } from 'express';
import type { RpcHandlers } from '@aff/messaging';
import type { inviteHandler } from '../console/invite.rpc';
import { dispatchPage } from '../pages/page-dispatch';

export function webRpcTable(
  app: Express,
  invite: ReturnType<typeof inviteHandler>,
): RpcHandlers<'web'> {
  return {
    renderPage: (request, ctx) => dispatchPage(app, request, ctx.requestId),
    inviteConsoleUser: (input) => invite(input),
  };
}
