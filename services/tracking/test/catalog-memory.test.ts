/** The in-memory link catalog follows token changes and never lets an older version win. */
import type { LinkView } from '@aff/contracts';
import { CatalogMemory } from '../src/data/catalog-memory';

const MERCHANT = 'm1';
const link = (id: string, token: string, updatedAt: string): LinkView => ({
  id,
  token,
  url: `https://example.com/?via=${token}`,
  visitors: 0,
  leads: 0,
  conversions: 0,
  affiliate_id: 'a1',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: updatedAt,
});

describe('CatalogMemory links', () => {
  it('resolves the new token after a change and no longer the old one', () => {
    const memory = new CatalogMemory();
    memory.applyLink(MERCHANT, link('l1', 'old', '2026-01-01T00:00:00.000Z'));
    memory.applyLink(MERCHANT, link('l1', 'new', '2026-01-02T00:00:00.000Z'));
    expect(memory.linkByToken(MERCHANT, 'new')?._id).toBe('l1');
    expect(memory.linkByToken(MERCHANT, 'old')).toBeUndefined();
  });

  it('ignores an older version arriving late (a redelivery or an affiliate event with its links)', () => {
    const memory = new CatalogMemory();
    memory.applyLink(MERCHANT, link('l1', 'new', '2026-01-02T00:00:00.000Z'));
    memory.applyLink(MERCHANT, link('l1', 'old', '2026-01-01T00:00:00.000Z'));
    expect(memory.linkByToken(MERCHANT, 'new')?._id).toBe('l1');
    expect(memory.linkByToken(MERCHANT, 'old')).toBeUndefined();
    expect(memory.link(MERCHANT, 'l1')?.token).toBe('new');
  });

  it('gives a freed token to its new holder, whatever order the events come in', () => {
    const inOrder = new CatalogMemory();
    inOrder.applyLink(MERCHANT, link('l1', 'x', '2026-01-01T00:00:00.000Z'));
    inOrder.applyLink(MERCHANT, link('l1', 'y', '2026-01-02T00:00:00.000Z'));
    inOrder.applyLink(MERCHANT, link('l2', 'x', '2026-01-03T00:00:00.000Z'));
    expect(inOrder.linkByToken(MERCHANT, 'x')?._id).toBe('l2');
    expect(inOrder.linkByToken(MERCHANT, 'y')?._id).toBe('l1');

    const late = new CatalogMemory();
    late.applyLink(MERCHANT, link('l1', 'x', '2026-01-01T00:00:00.000Z'));
    late.applyLink(MERCHANT, link('l2', 'x', '2026-01-03T00:00:00.000Z'));
    // l1's move to `y` arrives last: it must not take `x` away from l2.
    late.applyLink(MERCHANT, link('l1', 'y', '2026-01-02T00:00:00.000Z'));
    expect(late.linkByToken(MERCHANT, 'x')?._id).toBe('l2');
    expect(late.linkByToken(MERCHANT, 'y')?._id).toBe('l1');
  });

  it('treats a stored copy older than the one in memory as stale', () => {
    const memory = new CatalogMemory();
    memory.applyLink(MERCHANT, link('l1', 'new', '2026-01-02T00:00:00.000Z'));
    const stored = {
      _id: 'l1',
      merchant_id: MERCHANT,
      affiliate_id: 'a1',
      token: 'old',
      url: '',
      created_at: new Date('2026-01-01T00:00:00.000Z'),
      updated_at: '2026-01-01T00:00:00.000Z',
    };
    expect(memory.isStale(stored)).toBe(true);
    expect(memory.isStale({ ...stored, updated_at: '2026-01-03T00:00:00.000Z' })).toBe(false);
  });
});
