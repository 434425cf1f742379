import { currentEventContext, type RpcHandlers } from '@aff/messaging';
import type { EmailConfirmations } from '../domain/email-confirmations';
import type { WalletConfirmations } from '../domain/wallet-confirmations';

export type EmailRpc = Pick<RpcHandlers<'affiliate'>, 'confirmEmail' | 'confirmWallet'>;

export function emailRpc(
  confirmations: EmailConfirmations,
  wallets: WalletConfirmations,
): EmailRpc {
  return {
    /** Internal, for the gateway's public `/portal/confirm-wallet`. */
    confirmWallet: ({ token }, rpc) =>
      wallets.confirm(token, { events: currentEventContext(rpc.requestId) }),
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
