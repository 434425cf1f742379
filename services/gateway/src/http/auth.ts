/** HTTP Basic auth: the API secret is the username, the password is empty or omitted. */
import type { NextFunction, Request, Response } from 'express';
import type {
  AuthenticatedMerchant,
  MerchantAuthenticator,
} from '../merchants/merchant-authenticator';
import { AUTH_FAILURE_POLICY, type AuthFailureGuard } from '../rate-limit/auth-failure-guard';
import { rateLimitHeaders, type RateDecision } from '../rate-limit/merchant-rate-limiter';
import type { SecretDirectory } from '../merchants/secret-directory';
import type { AddressKey } from './client-address';

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

/**
 * A secret in the in-memory directory (../merchants/secret-directory.ts) is served at once,
 * whatever the failures from its address: failed logins of others at the same address (a flood,
 * a shared NAT or load balancer) never lock out a valid secret. Anything else is limited per
 * client address (../rate-limit/auth-failure-guard.ts) before the database is asked, so a flood
 * costs a Redis read per request and no look-up.
 */
export function authenticate(
  directory: SecretDirectory,
  authenticator: MerchantAuthenticator,
  failures: AuthFailureGuard,
  clientKey: AddressKey,
) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const secret = secretFromAuthorization(req.get('authorization'));
    let merchant = secret ? (directory.find(secret) ?? authenticator.cached(secret)) : null;
    if (!merchant) {
      const client = clientKey(req);
      const gate = await failures.check(client);
      if (!gate.allowed) {
        tooManyFailures(res, gate);
        return;
      }
      // A merchant created since the directory's last reload (its message lost or late).
      const since = directory.snapshot();
      merchant = secret ? await authenticator.authenticate(secret) : null;
      if (!merchant) {
        await failures.recordFailure(client);
        res.setHeader('WWW-Authenticate', 'Basic realm="api"');
        res.status(401).json(INVALID_SECRET);
        return;
      }
      directory.learn(secret!, merchant, since);
    }
    res.locals.merchant = merchant;
    next();
  };
}

function tooManyFailures(res: Response, gate: RateDecision): void {
  res.set(rateLimitHeaders(gate, AUTH_FAILURE_POLICY));
  res.setHeader('Retry-After', String(gate.resetSeconds));
  res.status(429).json({
    error: `Too many failed authentication attempts. Retry in ${gate.resetSeconds} seconds.`,
  });
}

export function merchantOf(res: Response): AuthenticatedMerchant {
  return res.locals.merchant as AuthenticatedMerchant;
}
