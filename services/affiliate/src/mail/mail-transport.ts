/**
 * Where mails leave the service: an SMTP server (nodemailer) when SMTP_URL is set, otherwise
 * `.eml` files in a local outbox directory so development needs no mail server.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface OutgoingMail extends MailMessage {
  /** Stable per event, so a receiver can tell a resend from a new mail. */
  messageId: string;
}

export interface MailTransport {
  /** For the start-up log line; never includes credentials. */
  readonly description: string;
  send(mail: OutgoingMail): Promise<void>;
}

export interface MailTransportConfig {
  SMTP_URL?: string | undefined;
  MAIL_FROM: string;
  MAIL_OUTBOX_DIR: string;
}

// Shorter than the mail consumers' ack wait, so a hung server fails the attempt first.
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };

export function createMailTransport(config: MailTransportConfig): MailTransport {
  if (config.SMTP_URL) {
    const url = new URL(config.SMTP_URL);
    const transporter = nodemailer.createTransport({ url: config.SMTP_URL, ...SMTP_TIMEOUTS });
    return {
      description: `smtp ${url.hostname}:${url.port || (url.protocol === 'smtps:' ? 465 : 587)}`,
      async send(mail) {
        await transporter.sendMail({ ...mail, from: config.MAIL_FROM });
      },
    };
  }
  const dir = path.resolve(config.MAIL_OUTBOX_DIR);
  const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true });
  // Made on the first mail, not on each: a mkdir per mail was a visible share of the affiliate
  // service's CPU in a burst of commissions. A directory removed meanwhile is made again.
  let dirMade = false;
  const writeFile = async (file: string, data: string | Buffer) => {
    if (!dirMade) {
      await fs.mkdir(dir, { recursive: true });
      dirMade = true;
    }
    try {
      await fs.writeFile(file, data);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await fs.mkdir(dir, { recursive: true });
      await fs.writeFile(file, data);
    }
  };
  return {
    description: `outbox directory ${dir}`,
    async send(mail) {
      const info = await transporter.sendMail({ ...mail, from: config.MAIL_FROM });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${safeName(mail.messageId)}`;
      await writeFile(path.join(dir, `${name}.eml`), info.message as Buffer);
      // The .eml wraps long lines (quoted-printable); the .txt keeps links whole for a terminal.
      const plain = `To: ${mail.to}\nSubject: ${mail.subject}\n\n${mail.text}\n`;
      await writeFile(path.join(dir, `${name}.txt`), plain);
    },
  };
}

const safeName = (text: string) => text.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 120);
