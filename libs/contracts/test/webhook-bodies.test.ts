/** Webhook endpoint bodies as the contract map checks them before the webhook service runs. */
import { OPERATIONS, validate } from '../src';

const strict = {
  create: OPERATIONS.createWebhookEndpoint.body,
  update: OPERATIONS.updateWebhookEndpoint.body,
};

describe('webhook endpoint bodies', () => {
  it('need an absolute http(s) URL', () => {
    expect(validate(strict.create, {})).toEqual({ ok: false, details: ["Url can't be blank"] });
    for (const url of ['example.com/hook', 'ftp://example.com/', 'javascript:alert(1)', '/hook']) {
      expect(validate(strict.create, { url })).toEqual({
        ok: false,
        details: ['Url must be an absolute http(s) URL'],
      });
    }
    expect(validate(strict.create, { url: ' https://example.com/hook ' })).toEqual({
      ok: true,
      value: { url: 'https://example.com/hook' },
    });
  });

  it('accept events as a form list, a JSON array or a comma list, and reject unknown types', () => {
    const url = 'https://example.com/';
    expect(
      validate(strict.create, { url, events: ['affiliate.created', 'payout.paid'] }),
    ).toMatchObject({
      value: { events: ['affiliate.created', 'payout.paid'] },
    });
    expect(
      validate(strict.create, { url, events: 'affiliate.created, affiliate.created' }),
    ).toMatchObject({
      value: { events: ['affiliate.created'] },
    });
    expect(validate(strict.create, { url, events: ['*', 'payout.paid'] })).toMatchObject({
      value: { events: ['*'] },
    });
    expect(
      validate(strict.create, { url, events: ['affiliate.created', 'nope', 'charge.attributed'] }),
    ).toEqual({
      ok: false,
      details: [
        'Events contains an unknown event type: nope',
        'Events contains an unknown event type: charge.attributed',
      ],
    });
    expect(validate(strict.create, { url, events: [] })).toEqual({
      ok: false,
      details: ["Events can't be blank"],
    });
    expect(validate(strict.create, { url, events: { a: 1 } })).toEqual({
      ok: false,
      details: ['Events must be a list of event types'],
    });
  });

  it('let an update change any field, and check what it changes', () => {
    expect(validate(strict.update, {})).toEqual({ ok: true, value: {} });
    expect(validate(strict.update, { enabled: 'false' })).toEqual({
      ok: true,
      value: { enabled: false },
    });
    expect(validate(strict.update, { url: '' })).toEqual({
      ok: false,
      details: ["Url can't be blank"],
    });
    expect(validate(strict.update, { enabled: 'maybe' })).toEqual({
      ok: false,
      details: ['Enabled must be true or false'],
    });
  });
});
