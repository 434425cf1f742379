/**
 * Tells tracking where an affiliate signed in from (internal `affiliate.signed_in`, never sent
 * to merchants), as the keyed hash services get for public calls, so a visit or lead from the
 * same address can be flagged `self_referral_ip` (docs/fraud.md). Best effort: a sign-in
 * succeeds even when the event cannot be published (the signal is then missed, not wrong).
 */
import type { Request } from 'express';
import { buildEvent } from '@aff/contracts';
import type { Logger } from '@aff/logging';
import type { EventPublisher } from '@aff/messaging';
import { addressHash, clientAddress } from './client-address';

export interface SignInAnnouncer {
  publisher: Pick<EventPublisher, 'publish'>;
  /** The merchant's address salt (made now if it has none yet). */
  addressSaltOf: (merchantId: string) => Promise<string>;
  log: Logger;
}

export async function announceSignIn(
  deps: SignInAnnouncer,
  merchantId: string,
  affiliateId: string,
  req: Request,
): Promise<void> {
  try {
    const salt = await deps.addressSaltOf(merchantId);
    await deps.publisher.publish(
      buildEvent('affiliate.signed_in', merchantId, {
        affiliate_id: affiliateId,
        address_hash: addressHash(salt, clientAddress(req)),
        signed_in_at: new Date().toISOString(),
      }),
    );
  } catch (error) {
    deps.log.warn({ err: (error as Error).message, affiliateId }, 'sign-in not announced');
  }
}
