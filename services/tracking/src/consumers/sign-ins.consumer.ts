/** Portal sign-ins (internal `affiliate.signed_in`) → the addresses `self_referral_ip` checks. */
import { eventHandlers } from '@aff/messaging';
import type { AddressFactsRepository } from '../data/address-facts.repository';

export function signInsConsumer(facts: Pick<AddressFactsRepository, 'recordSignIn'>) {
  return eventHandlers(
    {
      'affiliate.signed_in': (data, { event }) =>
        facts.recordSignIn(
          event.merchant_id,
          data.affiliate_id,
          data.address_hash,
          new Date(data.signed_in_at),
        ),
    },
    { 'affiliate.signed_in': (data) => data.affiliate_id },
  );
}
