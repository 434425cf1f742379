import {
  applyCampaignChanges,
  campaignProblems,
  defaultCampaignSettings,
} from '../src/domain/campaign-rules';
import { generateLinkToken } from '../src/domain/link-token';
import { buildLinkUrl } from '../src/domain/views';

describe('buildLinkUrl', () => {
  it('adds via=<token> and keeps the campaign URL query', () => {
    expect(buildLinkUrl('https://shop.example.com/', 'jane')).toBe(
      'https://shop.example.com/?via=jane',
    );
    expect(buildLinkUrl('https://shop.example.com/p?x=1', 'j-2')).toBe(
      'https://shop.example.com/p?x=1&via=j-2',
    );
    expect(buildLinkUrl('https://shop.example.com/?via=old', 'new')).toBe(
      'https://shop.example.com/?via=new',
    );
  });
});

describe('generateLinkToken', () => {
  it('makes readable tokens of letters, numbers and dashes only', () => {
    expect(generateLinkToken('Zoë Ann')).toMatch(/^zoe-ann-[a-z2-9]{6}$/);
    expect(generateLinkToken('!!!')).toMatch(/^[a-z2-9]{6}$/);
    const tokens = new Set(Array.from({ length: 200 }, () => generateLinkToken('x')));
    expect(tokens.size).toBe(200);
  });
});

describe('campaign rules', () => {
  it('defaults to 20 percent, due after 30 days, referrals expiring after 60', () => {
    expect(defaultCampaignSettings('https://example.com/')).toMatchObject({
      reward_type: 'percent',
      commission_percent: 20,
      days_until_commissions_are_due: 30,
      days_before_referrals_expire: 60,
      minimum_payout_cents: 0,
    });
  });

  it('keeps absent fields, clears nullable ones set to null, and checks the reward type', () => {
    const base = { ...defaultCampaignSettings('https://example.com/'), max_commissions: 5 };
    const next = applyCampaignChanges(base, {
      name: 'New',
      reward_type: 'amount',
      max_commissions: null,
    });
    expect(next).toMatchObject({
      name: 'New',
      reward_type: 'amount',
      max_commissions: null,
      commission_percent: 20,
    });
    expect(campaignProblems(next)).toEqual([
      "Commission amount cents can't be blank",
      "Commission amount currency can't be blank",
    ]);
    expect(
      campaignProblems({
        ...next,
        commission_amount_cents: 500,
        commission_amount_currency: 'EUR',
      }),
    ).toEqual([]);
  });
});
