import { ConfigError } from '@aff/config';
import { loadAffiliateConfig } from '../src/config';

const valid = { MONGO_URL: 'mongodb://127.0.0.1:27017/', NATS_URL: 'nats://127.0.0.1:4222' };

describe('affiliate mail configuration', () => {
  it('writes to the local outbox unless an SMTP URL is given; blank means unset', () => {
    for (const smtp of [undefined, '']) {
      expect(loadAffiliateConfig({ ...valid, SMTP_URL: smtp })).toMatchObject({
        SMTP_URL: undefined,
        MAIL_OUTBOX_DIR: '.local/outbox',
        EMAIL_CONFIRMATION_TTL_HOURS: 72,
      });
    }
    expect(loadAffiliateConfig({ ...valid, SMTP_URL: 'smtps://u:p@mail:465' }).SMTP_URL).toBe(
      'smtps://u:p@mail:465',
    );
  });

  it('names a malformed SMTP_URL', () => {
    try {
      loadAffiliateConfig({ ...valid, SMTP_URL: 'http://mail' });
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.join('\n')).toMatch(/^SMTP_URL: must be a URL/m);
    }
  });
});
