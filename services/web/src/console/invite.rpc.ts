/** `inviteConsoleUser`: the operator CLI's `console:invite`, answered by the service that owns users. */
import type { ConsoleAccounts } from './console-accounts';
import { signInMail, type ConsoleMailer } from './console-mailer';
import { signInUrl } from './sign-in-routes';

export function inviteHandler(deps: {
  accounts: ConsoleAccounts;
  mailer: ConsoleMailer;
  publicUrl: string;
}) {
  return async (input: { merchant_id: string; email: string; role: 'owner' | 'viewer' }) => {
    const user = await deps.accounts.invite(input.merchant_id, input.email, input.role);
    const url = signInUrl(deps.publicUrl, await deps.accounts.issueLink(user._id));
    await deps.mailer.send(signInMail(user.email, url));
    return { user_id: user._id, sign_in_url: url };
  };
}
