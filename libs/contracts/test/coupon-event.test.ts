import { randomUUID } from 'node:crypto';
import { checkEventData } from '../src';

const coupon = (externalId: string | null) => ({
  id: randomUUID(),
  token: 'SAVE10',
  external_id: externalId,
  affiliate_id: randomUUID(),
  campaign_id: randomUUID(),
  leads: 0,
  conversions: 0,
  archived: false,
  archived_at: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
});

describe('affiliate_coupon.created events', () => {
  it('accept one published before external_id became a string (null stands for the token)', () => {
    expect(checkEventData('affiliate_coupon.created', coupon(null)).ok).toBe(true);
    expect(checkEventData('affiliate_coupon.created', coupon('co_1')).ok).toBe(true);
  });

  it('still refuse an external_id of another type', () => {
    expect(checkEventData('affiliate_coupon.created', { ...coupon('x'), external_id: 5 }).ok).toBe(
      false,
    );
  });
});
