/** HTTP Basic auth: the API secret is the username, the password is empty or omitted. */
import type { NextFunction, Request, Response } from 'express';
import type {
  AuthenticatedMerchant,
  MerchantAuthenticator,
} from '../merchants/merchant-authenticator';

export const INVALID_SECRET = { error: 'Invalid API Secret.' } as const;

export function secretFromAuthorization(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const username = colon === -1 ? decoded : decoded.slice(0, colon);
  return username.length > 0 && username.length <= 256 ? username : null;
}

export function authenticate(authenticator: MerchantAuthenticator) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const secret = secretFromAuthorization(req.get('authorization'));
    const merchant = secret ? await authenticator.authenticate(secret) : null;
    if (!merchant) {
      res.setHeader('WWW-Authenticate', 'Basic realm="api"');
      res.status(401).json(INVALID_SECRET);
      return;
    }
    res.locals.merchant = merchant;
    next();
  };
}

export function merchantOf(res: Response): AuthenticatedMerchant {
  return res.locals.merchant as AuthenticatedMerchant;
}
