/**
 * Console users, sign-in links and sessions. Links: 15 minutes, single use, stored hashed, and
 * issuing one deletes the user's older ones (only the newest works). Sessions: hashed cookie
 * value, 12 hours idle (each use pushes the expiry forward).
 *
 * A session keeps what pages need of its user (merchant, address, role), copied when it opens,
 * so every console page finds its session in one read by `_id` (it read the session, then the
 * user, one after the other). The copy never goes stale: a user's address and merchant never
 * change, and changing a role ends that user's sessions (`invite`); a session opened while a
 * role changed checks the user again after its insert (`redeem`). Whoever adds a way to remove
 * a user must end the user's sessions the same way.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { ScopedRepository, driverCollection } from '@aff/mongo';
import type { ConsoleModels, ConsoleSessionRecord, ConsoleUserRecord } from './console.schema';

export const LINK_TTL_MS = 15 * 60_000;
export const SESSION_IDLE_MS = 12 * 3_600_000;
/** A session's expiry is written again only when it moved this much: not one write per page. */
const TOUCH_EVERY_MS = 60_000;

export interface ConsoleSession {
  token: string;
  userId: string;
  merchantId: string;
  email: string;
  role: 'owner' | 'viewer';
  csrfToken: string;
  expiresAt: Date;
}

const hash = (value: string) => createHash('sha256').update(value).digest('hex');
const secret = () => randomBytes(32).toString('base64url');

export class ConsoleAccounts {
  /** Users are per merchant; sessions and links are keyed by token hash and read across. */
  private readonly users: ScopedRepository<ConsoleUserRecord>;

  constructor(
    private readonly models: ConsoleModels,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.users = new ScopedRepository(models.consoleUser);
  }

  /** Creates the user, or changes the role of the existing one for this merchant and address. */
  async invite(
    merchantId: string,
    email: string,
    role: 'owner' | 'viewer',
  ): Promise<ConsoleUserRecord> {
    const address = email.trim().toLowerCase();
    const existing = await this.users.findOne(merchantId, { email: address });
    if (existing) {
      if (existing.role !== role) {
        await this.users.updateOne(merchantId, { _id: existing._id }, { $set: { role } });
        // After the user's update: a session still holding the old role is gone, and one
        // opened from here on copies the new role (or finds it changed, `redeem`).
        await this.models.consoleSession.deleteMany({ user_id: existing._id }).exec();
      }
      return { ...existing, role };
    }
    const user: ConsoleUserRecord = {
      _id: randomUUID(),
      merchant_id: merchantId,
      email: address,
      role,
      created_at: this.now(),
    };
    try {
      await driverCollection(this.models.consoleUser).insertOne(user);
      return user;
    } catch (error) {
      // A concurrent invite of the same address won the unique index: use its user.
      if ((error as { code?: number }).code !== 11000) throw error;
      return this.invite(merchantId, email, role);
    }
  }

  /** Every user (one per merchant) with this address; none for an unknown one. */
  async usersByEmail(email: string): Promise<ConsoleUserRecord[]> {
    return this.models.consoleUser
      .find({ email: email.trim().toLowerCase() })
      .limit(20)
      .lean<ConsoleUserRecord[]>()
      .exec();
  }

  /** A new sign-in link token (returned once, stored hashed); the user's older links die. */
  async issueLink(userId: string): Promise<string> {
    const token = secret();
    const now = this.now();
    await this.models.consoleLink.deleteMany({ user_id: userId }).exec();
    await driverCollection(this.models.consoleLink).insertOne({
      _id: hash(token),
      user_id: userId,
      created_at: now,
      expires_at: new Date(now.getTime() + LINK_TTL_MS),
    });
    return token;
  }

  /** Uses a link up (whoever deletes it first wins) and opens a session; null if it is dead. */
  async redeem(token: string): Promise<ConsoleSession | null> {
    if (!token || token.length > 200) return null;
    const id = hash(token);
    const link = await this.models.consoleLink.findById(id).lean().exec();
    if (!link) return null;
    const deleted = await this.models.consoleLink.deleteOne({ _id: id }).exec();
    if (deleted.deletedCount !== 1 || new Date(link.expires_at) <= this.now()) return null;
    const user = await this.models.consoleUser.findById(link.user_id).lean().exec();
    if (!user) return null;
    const sessionToken = secret();
    const now = this.now();
    const record = {
      _id: hash(sessionToken),
      user_id: user._id,
      merchant_id: user.merchant_id,
      email: user.email,
      role: user.role,
      csrf_token: secret(),
      created_at: now,
      expires_at: new Date(now.getTime() + SESSION_IDLE_MS),
    };
    await driverCollection(this.models.consoleSession).insertOne(record);
    // A role changed between the user's read and the insert: its `invite` may have ended the
    // user's sessions before this one existed. Read after the insert, the user says so.
    const after = await this.models.consoleUser.findById(user._id).lean().exec();
    if (after?.role !== user.role) {
      await this.models.consoleSession.deleteOne({ _id: record._id }).exec();
      return null;
    }
    return toSession(sessionToken, record);
  }

  /** The live session for a cookie value (its idle expiry pushed forward), or null. */
  async session(token: string | undefined): Promise<ConsoleSession | null> {
    if (!token || token.length > 200) return null;
    const id = hash(token);
    const record = await this.models.consoleSession.findById(id).lean().exec();
    const now = this.now();
    if (!record || new Date(record.expires_at) <= now) return null;
    const user = await this.userOf(record);
    if (!user) return null;
    const expiresAt = new Date(now.getTime() + SESSION_IDLE_MS);
    if (expiresAt.getTime() - new Date(record.expires_at).getTime() >= TOUCH_EVERY_MS) {
      await this.models.consoleSession
        .updateOne({ _id: id }, { $set: { expires_at: expiresAt } })
        .exec();
      record.expires_at = expiresAt;
    }
    return toSession(token, {
      user_id: record.user_id,
      merchant_id: user.merchant_id,
      email: user.email,
      role: user.role,
      csrf_token: record.csrf_token,
      expires_at: record.expires_at,
    });
  }

  /** The copy the session holds; a session opened before sessions held one reads its user. */
  private async userOf(record: ConsoleSessionRecord): Promise<SessionUser | null> {
    if (record.merchant_id && record.email && record.role) {
      return { merchant_id: record.merchant_id, email: record.email, role: record.role };
    }
    return this.models.consoleUser.findById(record.user_id).lean<SessionUser>().exec();
  }

  async close(token: string | undefined): Promise<void> {
    if (token) await this.models.consoleSession.deleteOne({ _id: hash(token) }).exec();
  }
}

export function csrfOk(session: ConsoleSession, sent: unknown): boolean {
  if (typeof sent !== 'string') return false;
  const a = Buffer.from(session.csrfToken);
  const b = Buffer.from(sent);
  return a.length === b.length && timingSafeEqual(a, b);
}

type SessionUser = Pick<ConsoleUserRecord, 'merchant_id' | 'email' | 'role'>;

function toSession(
  token: string,
  record: SessionUser & { user_id: string; csrf_token: string; expires_at: Date },
): ConsoleSession {
  return {
    token,
    userId: record.user_id,
    merchantId: record.merchant_id,
    email: record.email,
    role: record.role,
    csrfToken: record.csrf_token,
    expiresAt: new Date(record.expires_at),
  };
}
