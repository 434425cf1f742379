/** Asks the affiliate service over NATS for a link token it owns (see domain/catalog.ts). */
import { isAppError } from '@aff/api';
import { OPERATIONS } from '@aff/contracts';
import { callInternal, type RpcClient } from '@aff/messaging';
import type { LinkDirectory } from './domain/ports';

export class RpcLinkDirectory implements LinkDirectory {
  constructor(private readonly rpc: RpcClient) {}

  async resolveToken(merchantId: string, token: string) {
    try {
      return await callInternal(
        this.rpc,
        OPERATIONS.resolveLinkToken,
        { merchant_id: merchantId, token },
        'tracking',
      );
    } catch (error) {
      // An unknown or inactive token is an answer, not a failure.
      if (isAppError(error) && error.status === 404) return null;
      throw error;
    }
  }
}
