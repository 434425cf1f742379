/** Asks the affiliate service over NATS about link tokens and coupon codes (see domain/catalog.ts). */
import { isAppError } from '@aff/api';
import { OPERATIONS } from '@aff/contracts';
import { callInternal, type RpcClient } from '@aff/messaging';
import type { AffiliateDirectory } from './domain/ports';

export class RpcAffiliateDirectory implements AffiliateDirectory {
  constructor(private readonly rpc: RpcClient) {}

  resolveToken(merchantId: string, token: string) {
    return orNullIfUnknown(
      callInternal(
        this.rpc,
        OPERATIONS.resolveLinkToken,
        { merchant_id: merchantId, token },
        'tracking',
      ),
    );
  }

  resolveCouponCode(merchantId: string, code: string) {
    return orNullIfUnknown(
      callInternal(
        this.rpc,
        OPERATIONS.resolveCouponCode,
        { merchant_id: merchantId, code },
        'tracking',
      ),
    );
  }
}

/** An unknown token or code is an answer, not a failure. */
async function orNullIfUnknown<T>(call: Promise<T>): Promise<T | null> {
  try {
    return await call;
  } catch (error) {
    if (isAppError(error) && error.status === 404) return null;
    throw error;
  }
}
