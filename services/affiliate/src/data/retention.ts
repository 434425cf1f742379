/**
 * What the affiliate service keeps of its per-event and per-request collections
 * (docs/retention.md): mail claims as long as a mail's event can be delivered again, sign-in
 * and confirmation tokens a day past their expiry (a late click still finds "expired").
 */
import type { Model } from 'mongoose';
import { DAY_MS, EVENT_RECORD_KEEP_MS, type RetentionRule } from '@aff/mongo';
import type { MailModels } from '../mail/mail-module';
import type { SsoTokenRecord } from './one-time-token.schema';

export const EXPIRED_TOKEN_KEEP_MS = DAY_MS;

export function affiliateRetention(
  models: MailModels & { ssoToken: Model<SsoTokenRecord> },
): RetentionRule[] {
  return [
    { model: models.sentMail, field: 'claimed_at', keepMs: EVENT_RECORD_KEEP_MS },
    { model: models.ssoToken, field: 'expires_at', keepMs: EXPIRED_TOKEN_KEEP_MS },
    { model: models.emailConfirmation, field: 'expires_at', keepMs: EXPIRED_TOKEN_KEEP_MS },
    { model: models.walletConfirmation, field: 'expires_at', keepMs: EXPIRED_TOKEN_KEEP_MS },
  ];
}
