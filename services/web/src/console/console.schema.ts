/**
 * The console's own data in web's database: users (invited by the operator), their sign-in
 * links and their sessions. Link and session `_id`s are SHA-256 hashes of the secret the user
 * holds, so a leaked database hands out nothing. Expiry is checked in code; the retention job
 * deletes what has expired (no TTL index on every server).
 */
import { Schema, type Connection, type Model } from 'mongoose';

export interface ConsoleUserRecord {
  _id: string;
  merchant_id: string;
  /** Lower-cased. */
  email: string;
  role: 'owner' | 'viewer';
  created_at: Date;
}

export interface ConsoleLinkRecord {
  _id: string;
  user_id: string;
  created_at: Date;
  expires_at: Date;
}

export interface ConsoleSessionRecord {
  _id: string;
  user_id: string;
  /**
   * The user's, copied when the session opens (one read per page; console-accounts.ts says why
   * the copy cannot go stale). Absent on sessions opened before the copy was kept.
   */
  merchant_id?: string;
  email?: string;
  role?: 'owner' | 'viewer';
  csrf_token: string;
  created_at: Date;
  /** Idle expiry: pushed forward as the session is used. */
  expires_at: Date;
}

const users = new Schema<ConsoleUserRecord>(
  {
    _id: String,
    merchant_id: { type: String, required: true },
    email: { type: String, required: true },
    role: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { versionKey: false },
);
// One user per address and merchant: a second invite changes the role, never duplicates.
users.index({ merchant_id: 1, email: 1 }, { unique: true });
users.index({ email: 1 });

const links = new Schema<ConsoleLinkRecord>(
  {
    _id: String,
    user_id: { type: String, required: true },
    created_at: { type: Date, required: true },
    expires_at: { type: Date, required: true },
  },
  { versionKey: false },
);
links.index({ user_id: 1 });
links.index({ expires_at: 1 });

const sessions = new Schema<ConsoleSessionRecord>(
  {
    _id: String,
    user_id: { type: String, required: true },
    merchant_id: String,
    email: String,
    role: String,
    csrf_token: { type: String, required: true },
    created_at: { type: Date, required: true },
    expires_at: { type: Date, required: true },
  },
  { versionKey: false },
);
sessions.index({ user_id: 1 });
sessions.index({ expires_at: 1 });

/**
 * A console form's single-use key (./form-keys.ts): `_id` is SHA-256 of the user and the key the
 * form carried. Claimed by the first post; holds that post's answer for 24 h so a second post of
 * the same form (double click, back button, a retried POST) replays it instead of acting again.
 */
export interface ConsoleFormKeyRecord {
  _id: string;
  merchant_id: string;
  user_id: string;
  /** SHA-256 of the request (method, path, fields other than `_csrf` and `_key`). */
  fingerprint: string;
  /** `POST /console/...`, for the page that refuses a key reused for another request. */
  request: string;
  /** Null while the first post runs. `used` only: an answer that held a secret is not kept. */
  answer: {
    status: number;
    location?: string;
    type?: string;
    body?: string;
    used_only?: boolean;
    /** The CSP nonce the page was rendered with: a replay puts its own in its place. */
    nonce?: string;
  } | null;
  created_at: Date;
  /** While pending: when the claim lapses (its process died); once answered: 24 h. */
  expires_at: Date;
}

const formKeys = new Schema<ConsoleFormKeyRecord>(
  {
    _id: String,
    merchant_id: { type: String, required: true },
    user_id: { type: String, required: true },
    fingerprint: { type: String, required: true },
    request: { type: String, required: true },
    answer: { type: Schema.Types.Mixed, default: null },
    created_at: { type: Date, required: true },
    expires_at: { type: Date, required: true },
  },
  { versionKey: false },
);
formKeys.index({ expires_at: 1 });

/**
 * Sign-in requests per address and window (./sign-in-limiter.ts), shared by every web replica:
 * `_id` is SHA-256 of the address and the window's start (no address is stored in clear, known
 * or not).
 */
export interface ConsoleSignInCountRecord {
  _id: string;
  count: number;
  /** The window's end: deleted by the retention job after it. */
  expires_at: Date;
}

const signInCounts = new Schema<ConsoleSignInCountRecord>(
  {
    _id: String,
    count: { type: Number, required: true },
    expires_at: { type: Date, required: true },
  },
  { versionKey: false },
);
signInCounts.index({ expires_at: 1 });

function model<T>(connection: Connection, name: string, schema: Schema<T>, collection: string) {
  return (
    (connection.models[name] as Model<T> | undefined) ??
    connection.model<T>(name, schema, collection)
  );
}

export const consoleModels = (connection: Connection) => ({
  consoleUser: model(connection, 'ConsoleUser', users, 'console_users'),
  consoleLink: model(connection, 'ConsoleLink', links, 'console_links'),
  consoleSession: model(connection, 'ConsoleSession', sessions, 'console_sessions'),
  consoleFormKey: model(connection, 'ConsoleFormKey', formKeys, 'console_form_keys'),
  consoleSignInCount: model(
    connection,
    'ConsoleSignInCount',
    signInCounts,
    'console_sign_in_counts',
  ),
});
export type ConsoleModels = ReturnType<typeof consoleModels>;
