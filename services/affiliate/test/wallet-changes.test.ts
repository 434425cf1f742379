import { initialWallets, walletChanges } from '../src/domain/wallet-changes';
import type { AffiliateRecord } from '../src/domain/records';

const now = new Date('2026-03-01T00:00:00Z');
const confirmedAt = new Date('2026-01-01T00:00:00Z');
const affiliate = (fields: Partial<AffiliateRecord> = {}) =>
  ({
    wallet_a_email: 'old@example.com',
    wallet_a_email_confirmed_at: confirmedAt,
    unconfirmed_wallet_a_email: null,
    wallet_b_email: null,
    wallet_b_email_confirmed_at: null,
    unconfirmed_wallet_b_email: null,
    ...fields,
  }) as AffiliateRecord;

describe('walletChanges', () => {
  it('keeps the wallet payouts go to and makes a new address pending, with a request to confirm it', () => {
    expect(walletChanges(affiliate(), { a: 'new@example.com' }, now)).toEqual({
      set: { unconfirmed_wallet_a_email: 'new@example.com', updated_at: now },
      requests: [{ wallet: 'a', email: 'new@example.com' }],
    });
  });

  it('changes nothing for the current address or an absent one (the form sends both wallets)', () => {
    const pending = affiliate({ unconfirmed_wallet_a_email: 'new@example.com' });
    expect(walletChanges(pending, { a: 'old@example.com', b: undefined }, now)).toEqual({
      set: {},
      requests: [],
    });
  });

  it('asks again for the pending address (a fresh link), and clears a wallet at once', () => {
    const pending = affiliate({ unconfirmed_wallet_a_email: 'new@example.com' });
    expect(walletChanges(pending, { a: 'new@example.com' }, now).requests).toEqual([
      { wallet: 'a', email: 'new@example.com' },
    ]);
    expect(walletChanges(pending, { a: null }, now).set).toEqual({
      wallet_a_email: null,
      wallet_a_email_confirmed_at: null,
      unconfirmed_wallet_a_email: null,
      updated_at: now,
    });
  });
});

describe('initialWallets', () => {
  it('counts wallets the merchant gives at creation as confirmed then', () => {
    expect(initialWallets({ wallet_a_email: 'a@example.com' }, now)).toEqual({
      wallet_a_email: 'a@example.com',
      wallet_a_email_confirmed_at: now,
      unconfirmed_wallet_a_email: null,
      wallet_b_email: null,
      wallet_b_email_confirmed_at: null,
      unconfirmed_wallet_b_email: null,
    });
  });
});
