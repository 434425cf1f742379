import { currentEventContext, type RpcHandlers } from '@aff/messaging';
import type { EmailConfirmations } from '../domain/email-confirmations';

export type EmailRpc = Pick<RpcHandlers<'affiliate'>, 'confirmEmail'>;

export function emailRpc(confirmations: EmailConfirmations): EmailRpc {
  return {
    /** Internal, for the gateway's public `/portal/confirm-email`; the token alone identifies the merchant. */
    confirmEmail: async ({ token }, rpc) => {
      const affiliate = await confirmations.confirm(token, {
        events: currentEventContext(rpc.requestId),
      });
      return {
        affiliate: { id: affiliate.id, first_name: affiliate.first_name, email: affiliate.email },
      };
    },
  };
}
