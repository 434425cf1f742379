/** HTTP Basic auth: the API secret is the username, the password is empty or omitted. */
import type { NextFunction, Request, Response } from 'express';
import type {
  AuthenticatedMerchant,
  MerchantAuthenticator,
} from '../merchants/merchant-authenticator';
import { AUTH_FAILURE_POLICY, type AuthFailureGuard } from '../rate-limit/auth-failure-guard';
import { rateLimitHeaders, type RateDecision } from '../rate-limit/merchant-rate-limiter';

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
 * Failed attempts are limited per client IP (../rate-limit/auth-failure-guard.ts). A secret this
 * gateway verified moments ago skips that check: it costs no look-up, so failures of others at
 * the same address (a shared NAT) do not stop a merchant that is already working.
 */
export function authenticate(authenticator: MerchantAuthenticator, failures: AuthFailureGuard) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const secret = secretFromAuthorization(req.get('authorization'));
    let merchant = secret ? authenticator.cached(secret) : null;
    if (!merchant) {
      const ip = req.ip ?? 'unknown';
      const gate = await failures.check(ip);
      if (!gate.allowed) {
        tooManyFailures(res, gate);
        return;
      }
      merchant = secret ? await authenticator.authenticate(secret) : null;
      if (!merchant) {
        await failures.recordFailure(ip);
        res.setHeader('WWW-Authenticate', 'Basic realm="api"');
        res.status(401).json(INVALID_SECRET);
        return;
      }
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
