/** Wires e-mail confirmation and notification mails into the service (one call from service.ts). */
import type { Model } from 'mongoose';
import type { Logger } from '@aff/logging';
import type { NatsConnection, RunningConsumer } from '@aff/messaging';
import type { AffiliateConfig } from '../config';
import { startMailConsumers } from '../consumers/mail.consumer';
import type {
  EmailConfirmationRecord,
  WalletConfirmationRecord,
} from '../data/one-time-token.schema';
import { OneTimeTokenRepository } from '../data/one-time-token.repository';
import type { SentMailRecord } from '../data/sent-mail.schema';
import type { AffiliatePresenter } from '../domain/affiliate-presenter';
import { EmailConfirmations } from '../domain/email-confirmations';
import { WalletConfirmations } from '../domain/wallet-confirmations';
import type { AffiliateStore } from '../domain/ports';
import { AffiliateMailer } from './affiliate-mailer';
import { createMailTransport } from './mail-transport';
import { OnceMailer } from './once-mailer';

export interface MailModule {
  /** For the RPC table (`confirmEmail`, `confirmWallet`). */
  confirmations: EmailConfirmations;
  walletConfirmations: WalletConfirmations;
  start(nc: NatsConnection): Promise<RunningConsumer[]>;
}

/** The mails' models, declared with the service's models (the kernel initialises them). */
export interface MailModels {
  emailConfirmation: Model<EmailConfirmationRecord>;
  walletConfirmation: Model<WalletConfirmationRecord>;
  sentMail: Model<SentMailRecord>;
}

export function mailModule(deps: {
  models: MailModels;
  config: AffiliateConfig;
  affiliates: AffiliateStore;
  presenter: AffiliatePresenter;
  log: Logger;
}): MailModule {
  const {
    emailConfirmation: tokens,
    walletConfirmation: walletTokens,
    sentMail: sent,
  } = deps.models;
  const ttlMs = deps.config.EMAIL_CONFIRMATION_TTL_HOURS * 3_600_000;
  const confirmations = new EmailConfirmations(
    new OneTimeTokenRepository(tokens),
    deps.affiliates,
    deps.presenter,
    ttlMs,
  );
  const walletConfirmations = new WalletConfirmations(
    new OneTimeTokenRepository(walletTokens),
    deps.affiliates,
    deps.presenter,
    ttlMs,
  );
  const transport = createMailTransport(deps.config);
  deps.log.info({ mail: transport.description }, 'mails go to');
  const domain = new URL(deps.config.PUBLIC_URL).hostname || 'localhost';
  const mailer = new AffiliateMailer(
    new OnceMailer(sent, transport, domain),
    confirmations,
    walletConfirmations,
    deps.affiliates,
    deps.config.PUBLIC_URL,
    ttlMs,
  );
  return {
    confirmations,
    walletConfirmations,
    start: (nc) => startMailConsumers(nc, mailer, deps.log),
  };
}
