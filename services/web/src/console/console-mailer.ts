/**
 * Mails the console's sign-in links: through SMTP_URL when set (the affiliate service's
 * setting, read the same way), otherwise as `.txt` files in MAIL_OUTBOX_DIR for local use.
 * The link is in the mail only, never in a log.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';

export interface ConsoleMailer {
  send(mail: { to: string; subject: string; text: string }): Promise<void>;
}

export function consoleMailer(config: {
  SMTP_URL?: string | undefined;
  MAIL_FROM: string;
  MAIL_OUTBOX_DIR: string;
}): ConsoleMailer {
  if (config.SMTP_URL) {
    const transporter = nodemailer.createTransport({
      url: config.SMTP_URL,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    });
    return {
      async send(mail) {
        await transporter.sendMail({ ...mail, from: config.MAIL_FROM });
      },
    };
  }
  const dir = path.resolve(config.MAIL_OUTBOX_DIR);
  return {
    async send(mail) {
      await fs.mkdir(dir, { recursive: true });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-console-sign-in.txt`;
      await fs.writeFile(
        path.join(dir, name),
        `To: ${mail.to}\nSubject: ${mail.subject}\n\n${mail.text}\n`,
      );
    },
  };
}

export function signInMail(to: string, url: string) {
  return {
    to,
    subject: 'Your sign-in link for the merchant console',
    text: [
      'Hello,',
      '',
      'Follow this link to sign in to the merchant console of your affiliate program:',
      url,
      '',
      'It works once, for 15 minutes, and only the newest link you asked for works.',
      'If you did not ask for it, ignore this mail.',
    ].join('\n'),
  };
}
