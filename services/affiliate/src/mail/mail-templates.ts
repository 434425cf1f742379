/** The texts of the mails affiliates get (pure). Plain text: every client shows it the same way. */
import { formatMoney } from '@aff/api';
import type { MailMessage } from './mail-transport';

export function confirmationMail(input: {
  to: string;
  firstName: string;
  url: string;
  expiresAt: Date;
}): MailMessage {
  return {
    to: input.to,
    subject: 'Confirm your e-mail address',
    text: [
      `Hello ${input.firstName},`,
      '',
      'Please confirm that this is the address for your affiliate account:',
      '',
      input.url,
      '',
      `The link works once and until ${input.expiresAt.toUTCString()}.`,
      'If you did not ask for this change, ignore this mail; your address stays as it was.',
    ].join('\n'),
  };
}

/** To the account e-mail, so a hijacked portal session alone cannot redirect payouts. */
export function walletConfirmationMail(input: {
  to: string;
  firstName: string;
  wallet: 'a' | 'b';
  walletEmail: string;
  url: string;
  expiresAt: Date;
}): MailMessage {
  const name = `wallet ${input.wallet.toUpperCase()}`;
  return {
    to: input.to,
    subject: 'Confirm your new payout wallet',
    text: [
      `Hello ${input.firstName},`,
      '',
      `Someone asked for your commissions to be paid to ${input.walletEmail} (${name}).`,
      'If that was you, confirm it here; payouts go to the new address only once you do:',
      '',
      input.url,
      '',
      `The link works once and until ${input.expiresAt.toUTCString()}.`,
      'If you did not ask for this, ignore this mail: your payouts stay where they were.',
      'Someone may have used your dashboard; sign out there and tell the program you work with.',
    ].join('\n'),
  };
}

export function commissionMail(input: {
  to: string;
  firstName: string;
  amountCents: number;
  currency: string;
}): MailMessage {
  const amount = formatMoney(input.amountCents, input.currency);
  return {
    to: input.to,
    subject: `You earned a commission of ${amount}`,
    text: [
      `Hello ${input.firstName},`,
      '',
      `A customer you referred made a payment, and you earned a commission of ${amount} (${input.currency.toUpperCase()}).`,
      'It becomes due for payout according to your program terms.',
      '',
      'You receive these mails because new-commission notifications are on for your account;',
      'you can turn them off in your affiliate dashboard.',
    ].join('\n'),
  };
}
