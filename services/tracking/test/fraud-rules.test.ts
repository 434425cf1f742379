/** The fraud signals' pure rules: what each one sees, what it says, and what a policy does with it. */
import { DEFAULT_FRAUD_POLICY, type FraudSignal } from '@aff/contracts';
import {
  decide,
  disposableEmail,
  fraudChanges,
  hitNumber,
  ipVelocity,
  normaliseEmail,
  PAID_ADS_CLICK_IDS,
  paidAds,
  paidAdsClickId,
  selfReferralEmail,
  selfReferralIp,
  signal,
  slideHits,
  type AddressHit,
} from '../src/domain/fraud-rules';

const NOW = new Date('2026-11-21T12:00:00.000Z');
const HOUR = 60 * 60 * 1000;
const ago = (ms: number) => new Date(NOW.getTime() - ms);

describe('normaliseEmail', () => {
  it('lower-cases and drops a +tag', () => {
    expect(normaliseEmail('  Jane.Doe+Promo@Example.COM ')).toBe('jane.doe@example.com');
  });

  it('drops dots for gmail.com and treats googlemail.com as gmail.com', () => {
    expect(normaliseEmail('JaneDoe+promo@googlemail.com')).toBe('janedoe@gmail.com');
    expect(normaliseEmail('jane.doe@gmail.com')).toBe('janedoe@gmail.com');
  });

  it('keeps dots on other domains, and is null for something that is not an address', () => {
    expect(normaliseEmail('jane.doe@example.com')).not.toBe(normaliseEmail('janedoe@example.com'));
    expect(normaliseEmail('not-an-address')).toBeNull();
    expect(normaliseEmail('+tag@example.com')).toBeNull();
    expect(normaliseEmail(null)).toBeNull();
  });
});

describe('selfReferralEmail', () => {
  const affiliate = {
    email: 'jane.doe@gmail.com',
    wallet_a_email: 'payouts@jane.example',
    wallet_b_email: null,
  };

  it("says a disguised spelling of the affiliate's own e-mail is written differently", () => {
    const found = selfReferralEmail('JaneDoe+promo@googlemail.com', affiliate, 'customer', NOW);
    expect(found).toEqual({
      type: 'self_referral_email',
      detected_at: NOW.toISOString(),
      detail: "The customer's e-mail is the affiliate's own, written differently.",
    });
  });

  it("matches the affiliate's own e-mail as written, and a wallet e-mail", () => {
    expect(selfReferralEmail('Jane.Doe@gmail.com', affiliate, 'lead', NOW)?.detail).toBe(
      "The lead's e-mail is the affiliate's own.",
    );
    expect(selfReferralEmail('payouts+x@jane.example', affiliate, 'lead', NOW)?.detail).toBe(
      "The lead's e-mail is the affiliate's wallet A (payout) e-mail, written differently.",
    );
  });

  it('finds nothing for another mailbox or no e-mail', () => {
    expect(selfReferralEmail('jane.doe2@gmail.com', affiliate, 'lead', NOW)).toBeNull();
    expect(selfReferralEmail(null, affiliate, 'lead', NOW)).toBeNull();
  });
});

describe('disposableEmail', () => {
  it('flags a domain of the maintained list, and its subdomains', () => {
    expect(disposableEmail('someone@mailinator.com', 'lead', NOW)?.detail).toBe(
      "The lead's e-mail uses mailinator.com, a disposable-mail domain: there may be no real customer behind it.",
    );
    expect(disposableEmail('x@inbox.mailinator.com', 'customer', NOW)?.type).toBe(
      'disposable_email',
    );
  });

  it('lets an ordinary provider through', () => {
    expect(disposableEmail('someone@gmail.com', 'lead', NOW)).toBeNull();
    expect(disposableEmail('someone@example.org', 'lead', NOW)).toBeNull();
    expect(disposableEmail(null, 'lead', NOW)).toBeNull();
  });
});

describe('paidAds', () => {
  it('finds every click id of the design list in a landing url', () => {
    for (const id of PAID_ADS_CLICK_IDS) {
      expect(paidAdsClickId(`https://shop.example/?via=t1&${id}=abc123`)).toBe(id);
    }
    expect(paidAds('https://shop.example/p?gclid=Cj0', NOW)?.detail).toContain('gclid');
  });

  it('ignores urls without one, look-alikes in the path or fragment, and no url', () => {
    expect(paidAdsClickId('https://shop.example/?via=t1&utm_source=google')).toBeNull();
    expect(paidAdsClickId('https://shop.example/gclid/?via=t1#fbclid=1')).toBeNull();
    expect(paidAdsClickId(null)).toBeNull();
  });

  it('reads a relative or malformed url by its query', () => {
    expect(paidAdsClickId('/landing?msclkid=1')).toBe('msclkid');
  });
});

describe('selfReferralIp', () => {
  it('names the sign-in day, never the address', () => {
    const found = selfReferralIp(new Date('2026-11-20T08:30:00.000Z'), 'lead', NOW);
    expect(found?.detail).toBe(
      'A lead came from an address the affiliate signed in from on 2026-11-20.',
    );
  });

  it('forgets a sign-in older than 30 days', () => {
    expect(selfReferralIp(ago(30 * 24 * HOUR - 1000), 'visit', NOW)).not.toBeNull();
    expect(selfReferralIp(ago(30 * 24 * HOUR + 1000), 'visit', NOW)).toBeNull();
    expect(selfReferralIp(null, 'visit', NOW)).toBeNull();
  });
});

describe('the sliding 24 h count', () => {
  const hit = (id: string, msAgo: number): AddressHit => ({ referral_id: id, at: ago(msAgo) });

  it('drops hits older than 24 hours and counts each referral once', () => {
    let hits = [hit('old', 25 * HOUR), hit('r1', 23 * HOUR)];
    hits = slideHits(hits, hit('r2', 0), NOW);
    hits = slideHits(hits, hit('r2', 0), NOW); // the same referral again (lead, then customer)
    expect(hits.map((h) => h.referral_id)).toEqual(['r1', 'r2']);
    expect(hitNumber(hits, 'r2')).toBe(2);
    expect(hitNumber(hits, 'old')).toBe(0);
  });

  it('signals each hit past the limit, not the ones up to it', () => {
    expect(ipVelocity(3, 3, 'lead', NOW)).toBeNull();
    expect(ipVelocity(4, 3, 'lead', NOW)?.detail).toBe(
      'This lead is number 4 from one address for this affiliate within 24 hours; the campaign allows 3.',
    );
    expect(ipVelocity(2, 1, 'customer', NOW)?.type).toBe('ip_velocity');
    expect(ipVelocity(4, undefined, 'lead', NOW)?.type).toBe('ip_velocity'); // default limit 3
  });
});

describe('decide and fraudChanges', () => {
  const email = signal('self_referral_email', NOW, 'e');
  const ads = signal('paid_ads', NOW, 'a');
  const ip = signal('self_referral_ip', NOW, 'i');
  const live = { deactivated_at: null, review_state: null, fraud_signals: [] as FraudSignal[] };

  it('lets the strongest action among the signals win, by the default policy', () => {
    expect(decide([], [ads], null, false).action).toBe('flag');
    expect(decide([ads], [ip], DEFAULT_FRAUD_POLICY, false).action).toBe('hold');
    expect(decide([ip], [email, null], undefined, false).action).toBe('block');
  });

  it('records nothing for an ignored type, and each type once', () => {
    const decision = decide(
      [ads],
      [ads, ip],
      { ...DEFAULT_FRAUD_POLICY, self_referral_ip: 'ignore' },
      false,
    );
    expect(decision.added).toEqual([]);
    expect(decision.signals).toEqual([ads]);
    expect(fraudChanges(live, decision, NOW)).toEqual({});
  });

  it('blocks by deactivating, holds by opening a review', () => {
    expect(fraudChanges(live, decide([], [email], null, false), NOW)).toEqual({
      fraud_signals: [email],
      flagged: true,
      deactivated_at: NOW,
    });
    expect(fraudChanges(live, decide([], [ip], null, false), NOW)).toEqual({
      fraud_signals: [ip],
      flagged: true,
      review_state: 'open',
    });
  });

  it("records an exempt affiliate's signals and neither holds nor blocks", () => {
    const decision = decide([], [email, ip], null, true);
    expect(decision.action).toBe('flag');
    expect(fraudChanges(live, decision, NOW)).toEqual({
      fraud_signals: [email, ip],
      flagged: true,
    });
  });

  it('does not reopen a referral the merchant already reviewed', () => {
    const reviewed = { ...live, review_state: 'approved' as const };
    expect(fraudChanges(reviewed, decide([], [ip], null, false), NOW)).toEqual({
      fraud_signals: [ip],
      flagged: true,
    });
  });
});
