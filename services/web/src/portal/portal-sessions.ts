/** Portal sessions: opened by a redeemed magic link, ended by sign-out or expiry. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Model } from 'mongoose';
import { driverCollection } from '@aff/mongo';
import type { PortalSessionRecord } from './portal-session.schema';

export interface PortalSession {
  merchantId: string;
  affiliateId: string;
  csrfToken: string;
  expiresAt: Date;
  /** Shown in the page header. */
  name: string;
}

const hash = (value: string) => createHash('sha256').update(value).digest('hex');

export class PortalSessions {
  constructor(
    private readonly model: Model<PortalSessionRecord>,
    private readonly ttlMs: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** A new session; the returned token goes into the cookie and is never stored. */
  async open(
    merchantId: string,
    affiliateId: string,
    name: string,
  ): Promise<{ token: string; session: PortalSession }> {
    const token = randomBytes(32).toString('base64url');
    const now = this.now();
    const record: PortalSessionRecord = {
      _id: hash(token),
      merchant_id: merchantId,
      affiliate_id: affiliateId,
      name,
      csrf_token: randomBytes(24).toString('base64url'),
      created_at: now,
      expires_at: new Date(now.getTime() + this.ttlMs),
    };
    // Expired sessions are deleted by the web service's retention job (../service.ts).
    await driverCollection(this.model).insertOne(record);
    return { token, session: toSession(record) };
  }

  async find(token: string | undefined): Promise<PortalSession | null> {
    if (!token || token.length > 200) return null;
    const record = await this.model.findById(hash(token)).lean<PortalSessionRecord>().exec();
    if (!record || new Date(record.expires_at) <= this.now()) return null;
    return toSession(record);
  }

  async close(token: string | undefined): Promise<void> {
    if (token) await this.model.deleteOne({ _id: hash(token) }).exec();
  }
}

export function csrfMatches(session: PortalSession, sent: unknown): boolean {
  if (typeof sent !== 'string') return false;
  const a = Buffer.from(session.csrfToken);
  const b = Buffer.from(sent);
  return a.length === b.length && timingSafeEqual(a, b);
}

function toSession(record: PortalSessionRecord): PortalSession {
  return {
    merchantId: record.merchant_id,
    affiliateId: record.affiliate_id,
    csrfToken: record.csrf_token,
    name: record.name,
    expiresAt: new Date(record.expires_at),
  };
}
