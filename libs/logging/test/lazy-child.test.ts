import { Writable } from 'node:stream';
import pino from 'pino';
import { lazyChild } from '../src';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const logger = pino({ redact: { paths: ['*.secret'], censor: '[redacted]' } }, stream);
  return { logger, lines };
}

it('makes no child until the logger is used', () => {
  const { logger } = capture();
  const child = jest.spyOn(logger, 'child');
  lazyChild(logger, { eventId: 'e1' });
  expect(child).not.toHaveBeenCalled();
});

it('logs with the bindings, the level and the redaction of a real child, made once', () => {
  const { logger, lines } = capture();
  const child = jest.spyOn(logger, 'child');
  const log = lazyChild(logger, { eventId: 'e1', eventType: 'referral.created' });
  log.warn({ payload: { secret: 's3cret' } }, 'first');
  log.info('second');
  expect(child).toHaveBeenCalledTimes(1);
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatchObject({
    level: 40,
    msg: 'first',
    eventId: 'e1',
    eventType: 'referral.created',
    payload: { secret: '[redacted]' },
  });
  expect(lines[1]).toMatchObject({ level: 30, msg: 'second', eventId: 'e1' });
  expect(log.isLevelEnabled('debug')).toBe(false);
});
