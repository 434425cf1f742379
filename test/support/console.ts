/** Plays a merchant's browser against the console over plain HTTP (cookie kept by the caller). */
import { runOps } from './merchant';
import { eventually } from './processor';
import { pageRequest, type PageResponse } from './portal';
import { mailsTo } from './smtp-sink';

export type ConsoleResponse = PageResponse;
export const consoleRequest = pageRequest;

/** `console:invite` through the real ops CLI; the parsed `--json` output. */
export async function invite(merchantId: string, email: string, role: 'owner' | 'viewer') {
  const out = await runOps([
    'console:invite',
    '--merchant',
    merchantId,
    '--email',
    email,
    '--role',
    role,
    '--json',
  ]);
  if (out.code !== 0) throw new Error(`console:invite: ${out.code} ${out.stderr}`);
  return JSON.parse(out.stdout) as { user_id: string; sign_in_url: string };
}

export const pathOf = (url: string) => url.slice(url.indexOf('/console/'));

/** Follows a sign-in link; returns the session cookie (`name=value`). */
export async function followLink(url: string) {
  const answer = await consoleRequest(pathOf(url));
  if (answer.status !== 303) throw new Error(`sign-in: ${answer.status} ${answer.text}`);
  return { cookie: answer.setCookie[0]!.split(';')[0]!, answer };
}

/** The sign-in links mailed to an address so far (newest last). */
export const linksMailedTo = (address: string, count = 1) =>
  eventually(async () => {
    const links = mailsTo(address)
      .map((m) => /https?:\/\/\S+\/console\/sign-in\/link\?token=[A-Za-z0-9_-]+/.exec(m.text)?.[0])
      .filter((link): link is string => Boolean(link));
    return links.length >= count ? links : undefined;
  }, 20_000);
