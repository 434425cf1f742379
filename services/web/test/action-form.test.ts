import { html } from '../src/portal/html';
import { actionForm } from '../src/console/components/action-form';

const keys = (s: string) => [...s.matchAll(/name="_key" value="([^"]+)"/g)].map((m) => m[1]);

describe('a console action form', () => {
  it('posts to its action with the CSRF token, its own key and the hidden fields given', () => {
    const form = String(
      actionForm({
        action: '/console/payouts/p1/pay',
        csrf: 'token',
        text: 'Mark paid',
        label: 'Ada Lovelace',
        hidden: html`<input type="hidden" name="page" value="2" />`,
      }),
    );
    expect(form).toMatch(
      /^<form class="inline" method="post" action="\/console\/payouts\/p1\/pay">/,
    );
    expect(form).toContain('name="_csrf" value="token"');
    expect(form).toContain('<input type="hidden" name="page" value="2" />');
    // The visible text and, for screen readers, what it acts on: one accessible name.
    expect(form).toContain(
      '<button type="submit" class="secondary">Mark paid <span class="sr">Ada Lovelace</span></button>',
    );
    expect(form.match(/<button/g)).toHaveLength(1);
  });

  it('gives every rendered form a key of its own, so two buttons on a page never share one', () => {
    const page = String(
      html`${actionForm({ action: '/a', csrf: 't', text: 'A' })}
      ${actionForm({ action: '/b', csrf: 't', text: 'B' })}`,
    );
    const [a, b] = keys(page);
    expect(a).toMatch(/^[0-9a-f-]{36}$/);
    expect(b).toMatch(/^[0-9a-f-]{36}$/);
    expect(a).not.toBe(b);
  });

  it('draws a page main action as a filled button on its own line', () => {
    const form = String(
      actionForm({ action: '/g', csrf: 't', text: 'Go', primary: true, block: true }),
    );
    expect(form).not.toContain('class="inline"');
    expect(form).not.toContain('class="secondary"');
    expect(form).toContain('>Go</button>');
  });
});
