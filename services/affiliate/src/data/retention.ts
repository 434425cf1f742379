/**
 * What the affiliate service keeps of its per-event and per-request collections
 * (docs/retention.md): mail claims as long as a mail's event can be delivered again, sign-in
 * and confirmation tokens a day past their expiry (a late click still finds "expired").
 */
import type { Connection } from 'mongoose';
import { DAY_MS, EVENT_RECORD_KEEP_MS, type RetentionRule } from '@aff/mongo';
import { emailConfirmationModel } from './email-confirmation.schema';
import { sentMailModel } from './sent-mail.schema';
import { walletConfirmationModel } from './wallet-confirmation.schema';
import { ssoTokenModel } from './sso-token.schema';

export const EXPIRED_TOKEN_KEEP_MS = DAY_MS;

export function affiliateRetention(mongo: Connection): RetentionRule[] {
  return [
    { model: sentMailModel(mongo), field: 'claimed_at', keepMs: EVENT_RECORD_KEEP_MS },
    { model: ssoTokenModel(mongo), field: 'expires_at', keepMs: EXPIRED_TOKEN_KEEP_MS },
    { model: emailConfirmationModel(mongo), field: 'expires_at', keepMs: EXPIRED_TOKEN_KEEP_MS },
    { model: walletConfirmationModel(mongo), field: 'expires_at', keepMs: EXPIRED_TOKEN_KEEP_MS },
  ];
}
