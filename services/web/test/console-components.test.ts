/**
 * The console's shared components: the list state kept in the URL, the data table (paging,
 * sortable headers, bulk checkboxes, accessibility attributes), the chart and the navigation.
 */
import type { Pagination } from '@aff/contracts';
import { chart } from '../src/console/components/chart';
import {
  backToList,
  dataTable,
  listHref,
  readListQuery,
  rules,
  stateInputs,
  type Column,
  type ListSpec,
} from '../src/console/components/data-table';
import { consoleNav, sectionOf } from '../src/console/console-pages';

const SPEC: ListSpec = {
  path: '/console/things',
  filters: { q: rules.text(10), state: rules.oneOf(['a', 'b']), day: rules.day(), who: rules.id() },
  sorts: ['created_at', 'amount'],
  defaultSort: '-created_at',
};
const ID = '0b2c6f3e-1d2a-4c8b-9e7f-123456789abc';

const pagination = (current: number, pages: number, total = pages * 2): Pagination => ({
  previous_page: current > 1 ? current - 1 : null,
  current_page: current,
  next_page: current < pages ? current + 1 : null,
  count: 2,
  limit: 2,
  total_pages: pages,
  total_count: total,
});

interface Row {
  id: string;
  name: string;
  amount: number;
}
const COLUMNS: Column<Row>[] = [
  { header: 'Name', cell: (r) => r.name },
  { header: 'Amount', num: true, sortKey: 'amount', cell: (r) => r.amount },
  { header: 'Created', sortKey: 'created_at', cell: () => null },
];

describe('list state in the URL', () => {
  it('keeps accepted values and drops bad ones (no error)', () => {
    const q = readListQuery(SPEC, {
      q: '  a long search text ',
      state: 'zzz',
      day: '2026-02-30',
      who: ID.toUpperCase(),
      page: '-3',
      sort: 'password',
      other: 'x',
    });
    expect(q.filters).toEqual({ q: 'a long sea', who: ID });
    expect(q.page).toBe(1);
    expect(q.sort).toBe('-created_at');
    const good = readListQuery(SPEC, { state: 'b', day: '2026-02-28', page: '3', sort: '-amount' });
    expect(good).toMatchObject({
      filters: { state: 'b', day: '2026-02-28' },
      page: 3,
      sort: '-amount',
    });
    // Arrays (`?state=a&state=b`) and objects (`?state[x]=1`) are not values.
    expect(readListQuery(SPEC, { state: ['a', 'b'], page: { x: '2' } }).filters).toEqual({});
    expect(readListQuery(SPEC, { page: '99999999' }).page).toBe(1);
    expect(readListQuery({ ...SPEC, maxPage: 50 }, { page: '900' }).page).toBe(50);
  });

  it('builds links that keep the filters, reset the page on a new filter or sort', () => {
    const q = readListQuery(SPEC, { state: 'a', q: 'x y', page: '4', sort: 'amount' });
    expect(listHref(q)).toBe('/console/things?q=x+y&state=a&sort=amount&page=4');
    expect(listHref(q, { page: 5 })).toBe('/console/things?q=x+y&state=a&sort=amount&page=5');
    expect(listHref(q, { sort: '-amount' })).toBe('/console/things?q=x+y&state=a&sort=-amount');
    expect(listHref(q, { filters: { state: undefined } })).toBe(
      '/console/things?q=x+y&sort=amount',
    );
    // The default order is not written out.
    expect(listHref(readListQuery(SPEC, {}))).toBe('/console/things');
  });

  it('action forms carry the state and the redirect goes back to the same list', () => {
    const q = readListQuery(SPEC, { state: 'a', page: '2', sort: 'amount' });
    const inputs = stateInputs(q).value;
    expect(inputs).toContain('name="state" value="a"');
    expect(inputs).toContain('name="page" value="2"');
    expect(backToList(SPEC, { _csrf: 't', state: 'a', page: '2', sort: 'amount', evil: '1' })).toBe(
      '/console/things?state=a&sort=amount&page=2',
    );
    expect(backToList(SPEC, { state: '<script>' })).toBe('/console/things');
  });

  it('refuses a filter named like the keys the table posts', () => {
    expect(() => readListQuery({ path: '/x', filters: { ids: rules.text() } }, {})).toThrow(
      /reserved/,
    );
  });
});

describe('data table', () => {
  const rows: Row[] = [
    { id: 'r1', name: 'Ann <b>', amount: 5 },
    { id: 'r2', name: 'Bo', amount: 7 },
  ];

  it('renders an accessible region, escaped cells, sort links and aria-sort', () => {
    const q = readListQuery(SPEC, { state: 'a', sort: 'amount' });
    const out = dataTable({
      label: 'Things',
      query: q,
      columns: COLUMNS,
      rows,
      empty: 'None.',
    }).value;
    expect(out).toMatch(/<div class="table" tabindex="0" role="region" aria-label="Things">/);
    expect(out).toContain('Ann &lt;b&gt;');
    expect(out.match(/scope="col"/g)).toHaveLength(3);
    // The ordered column says so and its link flips the order; the other starts ascending.
    expect(out).toMatch(
      /aria-sort="ascending">\s*<a href="\/console\/things\?state=a&amp;sort=-amount"/,
    );
    expect(out).toMatch(
      /aria-sort="none">\s*<a href="\/console\/things\?state=a&amp;sort=created_at"/,
    );
    expect(out).not.toContain('<nav class="pager"');
  });

  it('offers no sort link for a sort the list cannot do; shows its fixed order', () => {
    const fixed: ListSpec = { path: '/console/f', filters: {}, fixedOrder: '-created_at' };
    const out = dataTable({
      label: 'F',
      query: readListQuery(fixed, { sort: 'amount' }),
      columns: COLUMNS,
      rows,
      empty: 'None.',
    }).value;
    expect(out).not.toContain('<a href');
    expect(out).toMatch(/aria-sort="descending">\s*Created/);
  });

  it('pages from the pagination envelope, keeping the filters', () => {
    const q = readListQuery(SPEC, { state: 'b', page: '2' });
    const out = dataTable({
      label: 'Things',
      query: q,
      columns: COLUMNS,
      rows,
      empty: 'None.',
      pagination: pagination(2, 3),
    }).value;
    expect(out).toContain('Page 2 of 3');
    expect(out).toContain('href="/console/things?state=b" rel="prev"');
    expect(out).toContain('href="/console/things?state=b&amp;page=3" rel="next"');
    const last = dataTable({
      label: 'T',
      query: readListQuery(SPEC, { page: '9' }),
      columns: COLUMNS,
      rows: [],
      empty: 'Nothing here.',
      pagination: pagination(9, 3),
    }).value;
    expect(last).toContain('<td colspan="3">Nothing here.</td>');
    expect(last).toContain('href="/console/things?page=3" rel="prev"');
    expect(last).not.toContain('rel="next"');
  });

  it('bulk: one form with the CSRF token, the list state, ids checkboxes and action buttons', () => {
    const q = readListQuery(SPEC, { state: 'a' });
    const out = dataTable({
      label: 'Things',
      query: q,
      columns: COLUMNS,
      rows,
      empty: 'None.',
      bulk: {
        action: '/console/things/bulk',
        csrf: 'tok',
        buttons: [
          { value: 'approve', text: 'Approve selected' },
          { value: 'reject', text: 'Reject selected' },
        ],
        id: (r) => r.id,
        rowLabel: (r) => r.name,
      },
    }).value;
    expect(out).toMatch(/<form method="post" action="\/console\/things\/bulk"/);
    expect(out).toContain('name="_csrf" value="tok"');
    expect(out).toContain('name="state" value="a"');
    expect(out).toMatch(/type="checkbox"\s+name="ids"\s+value="r2"\s+aria-label="Select Bo"/);
    expect(out).toContain('name="action" value="reject"');
    expect(out.indexOf('</form>')).toBeGreaterThan(out.indexOf('</table>'));
  });

  it('bulk: only selectable rows get a checkbox; rowId marks each row', () => {
    const out = dataTable({
      label: 'Things',
      query: readListQuery(SPEC, {}),
      columns: COLUMNS,
      rows,
      empty: 'None.',
      rowId: (r) => r.id,
      bulk: {
        action: '/console/things/bulk',
        csrf: 'tok',
        buttons: [{ value: 'void', text: 'Void selected' }],
        id: (r) => r.id,
        rowLabel: (r) => r.name,
        selectable: (r) => r.amount > 5,
      },
    }).value;
    expect(out).toContain('<tr data-id="r1">');
    expect(out).toContain('<tr data-id="r2">');
    expect(out).not.toContain('value="r1"');
    expect(out).toContain('value="r2"');
    // The row without a checkbox keeps its cell, so the columns stay aligned.
    expect(out.match(/<td class="select">/g)).toHaveLength(2);
  });
});

describe('chart', () => {
  it('is an SVG image named and described, with a legend and its figures as a table', () => {
    const out = chart({
      id: 'money',
      title: 'Revenue per day',
      series: [
        { name: 'Revenue', colour: '#0b57d0' },
        { name: 'Commissions', colour: '#c2410c' },
      ],
      points: [
        { label: '2026-11-01', values: [1000, 100] },
        { label: '2026-11-02', values: [500, 0] },
      ],
      format: (v) => `$${(v / 100).toFixed(2)}`,
    }).value;
    expect(out).toMatch(/role="img"\s+aria-labelledby="money-title money-desc"/);
    expect(out).toContain('<title id="money-title">Revenue per day</title>');
    expect(out).toContain('$15.00 revenue, $1.00 commissions from 2026-11-01 to 2026-11-02.');
    expect(out).toContain('<summary>Chart data as a table</summary>');
    expect(out).toMatch(/<td class="num">\$5\.00<\/td>/);
    expect(out.match(/<rect/g)).toHaveLength(4 + 2); // bars + legend swatches
    expect(out).toMatch(/<svg class="swatch"[^>]*aria-hidden="true"/);
  });
});

describe('navigation', () => {
  it('lists every section and marks the current one', () => {
    expect(sectionOf('/console')).toBe('/console');
    expect(sectionOf('/console/affiliates/abc')).toBe('/console/affiliates');
    expect(sectionOf('/console/nowhere')).toBeUndefined();
    const out = consoleNav('/console/reviews').value;
    for (const text of [
      'Overview',
      'Affiliates',
      'Referrals',
      'Review queue',
      'Commissions',
      'Payouts',
      'Webhooks',
      'Campaigns',
    ])
      expect(out).toContain(`>${text}</a`);
    expect(out).toMatch(/href="\/console\/reviews" aria-current="page"/);
    expect(out.match(/aria-current/g)).toHaveLength(1);
  });
});
