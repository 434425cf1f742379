/**
 * A real SMTP server on loopback (the `smtp-server` package) that the system under test sends
 * mail to. Each accepted mail becomes a JSON file in a directory, so any test process can read
 * what arrived. A recipient whose address contains `+flaky` is refused (451) the first time,
 * which makes the sender retry. A recipient whose address contains `+slow` is accepted only
 * after SLOW_MAIL_MS (a slow mail server), so a test can tell a sender that waits for it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';

export const SLOW_MAIL_MS = 4_000;

export interface ReceivedMail {
  to: string[];
  from: string;
  subject: string;
  text: string;
  messageId: string;
}

export interface SmtpSink {
  url: string;
  dir: string;
  stop(): Promise<void>;
}

export async function startSmtpSink(dir: string): Promise<SmtpSink> {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const refusedOnce = new Set<string>();
  let count = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const to = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
      const flaky = to.find((address) => address.includes('+flaky') && !refusedOnce.has(address));
      simpleParser(stream)
        .then((parsed) => {
          if (flaky) {
            refusedOnce.add(flaky);
            fs.writeFileSync(path.join(dir, `refused-${++count}.json`), JSON.stringify({ to }));
            const error = new Error('Try again later') as Error & { responseCode: number };
            error.responseCode = 451;
            callback(error);
            return;
          }
          const mail: ReceivedMail = {
            to,
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            messageId: parsed.messageId ?? '',
          };
          const accept = () => {
            fs.writeFileSync(path.join(dir, `mail-${++count}.json`), JSON.stringify(mail));
            callback();
          };
          if (to.some((address) => address.includes('+slow'))) setTimeout(accept, SLOW_MAIL_MS);
          else accept();
        })
        .catch((error: Error) => callback(error));
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `smtp://127.0.0.1:${port}`,
    dir,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Mails that arrived so far (files written by the sink), oldest first. */
export function receivedMails(dir = process.env.AFF_TEST_MAIL_DIR ?? ''): ReceivedMail[] {
  if (!dir || !fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((name) => name.startsWith('mail-'))
    .sort((a, b) => Number(a.slice(5, -5)) - Number(b.slice(5, -5)))
    .map((name) => JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as ReceivedMail);
}

export function refusedDeliveries(dir = process.env.AFF_TEST_MAIL_DIR ?? ''): { to: string[] }[] {
  if (!dir || !fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((name) => name.startsWith('refused-'))
    .map((name) => JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as { to: string[] });
}

export const mailsTo = (address: string) =>
  receivedMails().filter((mail) => mail.to.includes(address.toLowerCase()));
