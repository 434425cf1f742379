/**
 * The fraud signals of DESIGN.md section 3 as pure rules: what each signal looks at, the
 * sentence a merchant reads, and what a campaign's policy makes of a referral's signals. No I/O:
 * the callers bring the e-mails, the landing url, the sign-in time and the address hits.
 */
import { blacklist } from 'mailchecker';
import {
  DEFAULT_FRAUD_POLICY,
  DEFAULT_IP_VELOCITY_LIMIT,
  FRAUD_ACTIONS,
  type FraudAction,
  type FraudPolicy,
  type FraudSignal,
  type FraudSignalType,
  type ReviewState,
} from '@aff/contracts';

const HOUR_MS = 60 * 60 * 1000;
/** `ip_velocity` counts the leads and customers of the last 24 hours. */
export const VELOCITY_WINDOW_MS = 24 * HOUR_MS;
/** Portal sign-in addresses count for `self_referral_ip` for 30 days. */
export const SIGN_IN_WINDOW_MS = 30 * 24 * HOUR_MS;

/** Who gave the e-mail: a lead on the merchant's page or the processor's customer. */
export type EmailSource = 'lead' | 'customer';
/** What an address-based signal saw come from the address. */
export type AddressSource = 'visit' | 'lead' | 'customer';

/** Mailboxes whose local part ignores dots; googlemail.com is gmail.com under another name. */
const DOTLESS_DOMAINS: Record<string, string> = {
  'gmail.com': 'gmail.com',
  'googlemail.com': 'gmail.com',
};

/**
 * One spelling per mailbox: lower-case, no `+tag`, and for Gmail no dots and one domain. Null
 * for something that is not an address.
 */
export function normaliseEmail(email: string | null | undefined): string | null {
  const trimmed = email?.trim().toLowerCase();
  const at = trimmed ? trimmed.lastIndexOf('@') : -1;
  if (!trimmed || at <= 0 || at === trimmed.length - 1) return null;
  let local = trimmed.slice(0, at).split('+')[0]!;
  let domain = trimmed.slice(at + 1);
  const gmail = DOTLESS_DOMAINS[domain];
  if (gmail) {
    local = local.replaceAll('.', '');
    domain = gmail;
  }
  return local ? `${local}@${domain}` : null;
}

/** The affiliate's addresses the self-referral rule compares with. */
export interface AffiliateMailboxes {
  email: string;
  wallet_a_email?: string | null;
  wallet_b_email?: string | null;
}

const WHOSE: Record<keyof AffiliateMailboxes, string> = {
  email: "the affiliate's own",
  wallet_a_email: "the affiliate's wallet A (payout) e-mail",
  wallet_b_email: "the affiliate's wallet B (payout) e-mail",
};

export function selfReferralEmail(
  email: string | null | undefined,
  affiliate: AffiliateMailboxes,
  source: EmailSource,
  now: Date,
): FraudSignal | null {
  const given = normaliseEmail(email);
  if (!given) return null;
  for (const field of ['email', 'wallet_a_email', 'wallet_b_email'] as const) {
    const theirs = affiliate[field];
    if (!theirs || normaliseEmail(theirs) !== given) continue;
    const literal = theirs.trim().toLowerCase() === email!.trim().toLowerCase();
    const detail = `The ${source}'s e-mail is ${WHOSE[field]}${literal ? '' : ', written differently'}.`;
    return signal('self_referral_email', now, detail);
  }
  return null;
}

/** The domain (or a parent domain) is on the maintained disposable-mail list. */
export function disposableDomain(email: string | null | undefined): string | null {
  const domain = email?.trim().toLowerCase().split('@')[1];
  if (!domain) return null;
  const list = blacklist();
  for (let d: string | undefined = domain; d; d = d.slice(d.indexOf('.') + 1)) {
    if (list.has(d)) return domain;
    if (!d.includes('.')) break;
  }
  return null;
}

export function disposableEmail(
  email: string | null | undefined,
  source: EmailSource,
  now: Date,
): FraudSignal | null {
  const domain = disposableDomain(email);
  return domain
    ? signal(
        'disposable_email',
        now,
        `The ${source}'s e-mail uses ${domain}, a disposable-mail domain: there may be no real customer behind it.`,
      )
    : null;
}

/** DESIGN.md's list: the click ids ad networks append to a landing page's url. */
export const PAID_ADS_CLICK_IDS = [
  'gclid',
  'gbraid',
  'wbraid',
  'fbclid',
  'msclkid',
  'ttclid',
  'twclid',
  'li_fat_id',
  'rdt_cid',
  'epik',
] as const;

/** The first paid-ads click id in the url's query (names compared as written: they are lower-case). */
export function paidAdsClickId(url: string | null | undefined): string | null {
  if (!url) return null;
  let params: URLSearchParams;
  try {
    params = new URL(url).searchParams;
  } catch {
    const query = url.includes('?') ? url.slice(url.indexOf('?') + 1).split('#')[0]! : '';
    params = new URLSearchParams(query);
  }
  return PAID_ADS_CLICK_IDS.find((id) => params.has(id)) ?? null;
}

export function paidAds(url: string | null | undefined, now: Date): FraudSignal | null {
  const id = paidAdsClickId(url);
  return id
    ? signal(
        'paid_ads',
        now,
        `The visit's landing page carries ${id}, a paid-ads click id: the affiliate may be buying ads, for example on your brand name.`,
      )
    : null;
}

/** `signedInAt`: the affiliate's latest portal sign-in from this address, if any. */
export function selfReferralIp(
  signedInAt: Date | null | undefined,
  source: AddressSource,
  now: Date,
): FraudSignal | null {
  if (!signedInAt) return null;
  const age = now.getTime() - new Date(signedInAt).getTime();
  if (age > SIGN_IN_WINDOW_MS) return null;
  const day = new Date(signedInAt).toISOString().slice(0, 10);
  const what = source === 'visit' ? 'A visit' : source === 'lead' ? 'A lead' : 'A customer';
  return signal(
    'self_referral_ip',
    now,
    `${what} came from an address the affiliate signed in from on ${day}.`,
  );
}

/** One lead or customer seen from an address (one per referral). */
export interface AddressHit {
  referral_id: string;
  at: Date;
}

/**
 * The hits of one affiliate and address after `hit` is added: those of the last 24 hours, in
 * arrival order, each referral once. This is the whole stored state of the sliding count.
 */
export function slideHits(hits: AddressHit[], hit: AddressHit, now: Date): AddressHit[] {
  const from = now.getTime() - VELOCITY_WINDOW_MS;
  const kept = hits.filter((h) => new Date(h.at).getTime() > from);
  return kept.some((h) => h.referral_id === hit.referral_id) ? kept : [...kept, hit];
}

/** The referral's place among the window's hits (1 = the first), 0 when it is not there. */
export function hitNumber(hits: AddressHit[], referralId: string): number {
  return hits.findIndex((h) => h.referral_id === referralId) + 1;
}

/** Each lead or customer past the limit is a signal; the ones up to it are not. */
export function ipVelocity(
  number: number,
  limit: number | null | undefined,
  source: AddressSource,
  now: Date,
): FraudSignal | null {
  const max = limit ?? DEFAULT_IP_VELOCITY_LIMIT;
  if (number <= max) return null;
  return signal(
    'ip_velocity',
    now,
    `This ${source === 'customer' ? 'customer' : 'lead'} is number ${number} from one address for this affiliate within 24 hours; the campaign allows ${max}.`,
  );
}

export function signal(type: FraudSignalType, now: Date, detail: string): FraudSignal {
  return { type, detected_at: now.toISOString(), detail };
}

/** What the campaign's policy makes of a referral's signals. */
export interface FraudDecision {
  /** The referral's signals after this evaluation (each type once, the first finding kept). */
  signals: FraudSignal[];
  /** Signals this evaluation recorded (a `referral.flagged` is due when there are any). */
  added: FraudSignal[];
  /** The strongest action among all the referral's signals, `ignore` when there are none. */
  action: FraudAction;
}

export function decide(
  existing: FraudSignal[],
  found: (FraudSignal | null)[],
  policy: Partial<FraudPolicy> | null | undefined,
  exempt: boolean,
): FraudDecision {
  const actionOf = (type: FraudSignalType): FraudAction =>
    policy?.[type] ?? DEFAULT_FRAUD_POLICY[type];
  const signals = [...existing];
  const added: FraudSignal[] = [];
  for (const s of found) {
    // `ignore` means the signal is not looked at at all: nothing recorded, nothing sent.
    if (!s || actionOf(s.type) === 'ignore' || signals.some((e) => e.type === s.type)) continue;
    signals.push(s);
    added.push(s);
  }
  let action: FraudAction = 'ignore';
  for (const s of signals) action = stronger(action, actionOf(s.type));
  // An exempt affiliate's signals are recorded for the merchant, and that is all.
  if (exempt && rank(action) > rank('flag')) action = 'flag';
  return { signals, added, action };
}

function rank(action: FraudAction): number {
  return FRAUD_ACTIONS.indexOf(action);
}
function stronger(a: FraudAction, b: FraudAction): FraudAction {
  return rank(b) > rank(a) ? b : a;
}

export interface FraudChanges {
  fraud_signals?: FraudSignal[];
  flagged?: boolean;
  review_state?: ReviewState;
  deactivated_at?: Date;
}

/** The referral fields the decision changes (none when nothing new was found). */
export function fraudChanges(
  current: {
    fraud_signals?: FraudSignal[];
    review_state?: ReviewState | null;
    deactivated_at: Date | null;
  },
  decision: FraudDecision,
  now: Date,
): FraudChanges {
  if (decision.added.length === 0) return {};
  const changes: FraudChanges = { fraud_signals: decision.signals, flagged: true };
  if (decision.action === 'block' && !current.deactivated_at) changes.deactivated_at = now;
  // A referral a merchant already decided on is not reopened; its new signals are recorded.
  if (decision.action === 'hold' && !current.review_state) changes.review_state = 'open';
  return changes;
}
