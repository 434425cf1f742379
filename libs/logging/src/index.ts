/**
 * Structured JSON logs. Anything that may hold a secret is redacted by path, so a careless
 * `log.info({ headers })` cannot leak an API secret.
 */
import pino from 'pino';

export type Logger = pino.Logger;

const REDACT_PATHS = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  'api_secret',
  '*.api_secret',
  'secret',
  '*.secret',
  'password',
  '*.password',
  'processor_signing_secret',
  '*.processor_signing_secret',
  'token',
  '*.token_hash',
];

export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    level,
    base: { service },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}

/**
 * A child logger made when first used. Consumers bind each event's ids to the logger they hand
 * their handlers, and most handlers never log; making a pino child (its bindings serialized and
 * redacted) for every event was a few per cent of a busy consumer's CPU.
 */
export function lazyChild(parent: Logger, bindings: pino.Bindings): Logger {
  let child: Logger | undefined;
  return new Proxy(parent, {
    get(_target, property) {
      child ??= parent.child(bindings);
      const value: unknown = Reflect.get(child, property, child);
      return typeof value === 'function'
        ? (value as (...a: unknown[]) => unknown).bind(child)
        : value;
    },
  });
}
