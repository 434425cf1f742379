/** How the console's lists name an affiliate: its name, or its e-mail when it has none. */
import type { AffiliateView } from '@aff/contracts';

export const affiliateName = (a: Pick<AffiliateView, 'first_name' | 'last_name' | 'email'>) =>
  `${a.first_name} ${a.last_name}`.trim() || a.email;
