import { confirmedWalletEmail } from '../src';

const wallets = {
  wallet_a_email: 'a@example.com',
  wallet_a_email_confirmed_at: '2026-01-01T00:00:00.000Z',
  wallet_b_email: 'b@example.com',
  wallet_b_email_confirmed_at: null,
};

it('gives a wallet to pay only once its confirmation is recorded', () => {
  expect(confirmedWalletEmail(wallets, 'a')).toBe('a@example.com');
  // Set before confirmation existed (no date): not paid to.
  expect(confirmedWalletEmail(wallets, 'b')).toBeNull();
  expect(confirmedWalletEmail({ ...wallets, wallet_a_email: null }, 'a')).toBeNull();
});
