/** The merchant console's users: the operator CLI invites them through the web service. */
import { z } from 'zod';
import { defineOperation } from './operation';

export const CONSOLE_ROLES = ['owner', 'viewer'] as const;

/**
 * Internal: `npm run ops -- console:invite` asks the web service (which owns console users) to
 * create or re-invite a user and mail a sign-in link. The CLI checks the merchant exists first.
 */
export const inviteConsoleUser = defineOperation({
  name: 'inviteConsoleUser',
  owner: 'web',
  auth: 'internal',
  summary: 'Create a merchant console user (or change its role) and mail a sign-in link',
  input: z.object({
    merchant_id: z.string().min(1).max(100),
    email: z.email().max(254),
    role: z.enum(CONSOLE_ROLES).default('owner'),
  }),
  response: {
    status: 200,
    description: 'The user and its new sign-in link (the only one that works)',
    body: z.object({ user_id: z.string(), sign_in_url: z.string() }),
  },
  errors: [400],
});
