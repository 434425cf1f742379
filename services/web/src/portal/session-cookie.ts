/** The portal's session cookie: HttpOnly, SameSite=Lax, Secure over HTTPS, with an expiry. */
import type { Request, Response } from 'express';

export const SESSION_COOKIE = 'aff_portal';

export function readSessionCookie(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
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
): string {
  const maxAge = Math.max(0, Math.round((expires.getTime() - now.getTime()) / 1000));
  return [
    `${SESSION_COOKIE}=${token ?? ''}`,
    'Path=/portal',
    `Max-Age=${token ? maxAge : 0}`,
    `Expires=${(token ? expires : new Date(0)).toUTCString()}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

export function setSessionCookie(res: Response, token: string, expires: Date, secure: boolean) {
  res.append('Set-Cookie', sessionCookie(token, expires, secure));
}

export function clearSessionCookie(res: Response, secure: boolean) {
  res.append('Set-Cookie', sessionCookie(null, new Date(0), secure));
}
