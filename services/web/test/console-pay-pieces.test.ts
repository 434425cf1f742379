/**
 * Pieces of the payouts and webhooks pages that the e2e tests cannot reach in a shared system:
 * an endpoint the platform disabled (it takes days of failures, or an isolated system), and the
 * notices actions leave in the URL (unknown values show nothing; counts are digits only).
 */
import type { WebhookEndpointView } from '@aff/contracts';
import { notice } from '../src/console/console-act';
import { health } from '../src/console/webhooks-page';

const endpoint = (fields: Partial<WebhookEndpointView>): WebhookEndpointView => ({
  id: '0b2c6f3e-1d2a-4c8b-9e7f-123456789abc',
  url: 'https://shop.example/hooks',
  events: ['*'],
  enabled: true,
  created_at: '2026-11-01T00:00:00.000Z',
  updated_at: '2026-11-01T00:00:00.000Z',
  failing_since: null,
  disabled_at: null,
  disabled_reason: null,
  ...fields,
});
const text = (value: unknown) =>
  String(value)
    .replace(/<[^>]+>/g, '')
    .replace(/\s+/g, ' ')
    .trim();

it('words an endpoint health from the fields the webhook service records', () => {
  expect(text(health(endpoint({})))).toBe('Healthy');
  expect(text(health(endpoint({ failing_since: '2026-11-02T03:04:05.000Z' })))).toBe(
    'Failing since 2026-11-02 03:04',
  );
  expect(text(health(endpoint({ enabled: false })))).toBe('Turned off');
  const disabled = health(
    endpoint({
      enabled: false,
      failing_since: '2026-11-02T03:04:05.000Z',
      disabled_at: '2026-11-07T03:04:05.000Z',
      disabled_reason: 'Every attempt failed for 5 days <b>',
    }),
  );
  expect(text(disabled)).toBe(
    'Disabled by the platform since 2026-11-07 03:04: Every attempt failed for 5 days &lt;b&gt;',
  );
  expect(String(disabled)).toContain('class="state bad"');
});

it('shows a notice only for the actions it knows, with a digits-only count', () => {
  expect(text(notice({ done: 'generated', n: '3' }))).toBe(
    'Generated payouts: 3 payouts received due commissions.',
  );
  expect(text(notice({ done: 'generated', n: '<script>' }))).toBe(
    'Generated payouts: 0 payouts received due commissions.',
  );
  expect(text(notice({ done: 'completed' }))).toContain('Export completed');
  for (const inherited of ['toString', 'hasOwnProperty', 'constructor', '__proto__']) {
    expect(notice({ done: inherited, n: '1' })).toBe('');
  }
  expect(notice({ done: ['completed'] })).toBe('');
  expect(notice({})).toBe('');
});
