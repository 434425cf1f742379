/**
 * Session cookies: HttpOnly, SameSite=Lax, Secure over HTTPS, with an expiry. The portal's by
 * default; the console passes its own name and path (CONSOLE_COOKIE).
 */
import type { Request, Response } from 'express';

export const SESSION_COOKIE = 'aff_portal';

export interface CookieKind {
  name: string;
  path: string;
}
const PORTAL_COOKIE: CookieKind = { name: SESSION_COOKIE, path: '/portal' };
export const CONSOLE_COOKIE: CookieKind = { name: 'aff_console', path: '/console' };

export function readSessionCookie(req: Request, kind = PORTAL_COOKIE): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === kind.name) {
      return part.slice(eq + 1).trim() || undefined;
    }
  }
  return undefined;
}

/** HTTPS when the request came over it (trust proxy decides) or the public URL says so. */
export function isHttps(req: Request, publicUrl: string): boolean {
  return req.secure || publicUrl.startsWith('https:');
}

/** The `Set-Cookie` value for a session token (`null` clears the cookie). */
export function sessionCookie(
  token: string | null,
  expires: Date,
  secure: boolean,
  now: Date = new Date(),
  kind = PORTAL_COOKIE,
): string {
  const maxAge = Math.max(0, Math.round((expires.getTime() - now.getTime()) / 1000));
  return [
    `${kind.name}=${token ?? ''}`,
    `Path=${kind.path}`,
    `Max-Age=${token ? maxAge : 0}`,
    `Expires=${(token ? expires : new Date(0)).toUTCString()}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

export function setSessionCookie(
  res: Response,
  token: string,
  expires: Date,
  secure: boolean,
  kind = PORTAL_COOKIE,
) {
  res.append('Set-Cookie', sessionCookie(token, expires, secure, new Date(), kind));
}

export function clearSessionCookie(res: Response, secure: boolean, kind = PORTAL_COOKIE) {
  res.append('Set-Cookie', sessionCookie(null, new Date(0), secure, new Date(), kind));
}
