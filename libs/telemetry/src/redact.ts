/**
 * What never leaves a process in a span or a log line: client addresses (personal data; the
 * services get a keyed hash instead) and secrets carried in URLs (magic-link tokens, session
 * ids). The HTTP instrumentation records both on every server span; they are dropped or
 * redacted here, before export. See docs/security.md.
 */
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

type ExportDone = Parameters<SpanExporter['export']>[1];

/** Span attributes that hold a peer's or client's address, old and stable conventions. */
export const CLIENT_ADDRESS_ATTRIBUTES = [
  'client.address',
  'http.client_ip',
  'net.peer.ip',
  'net.peer.name',
  'net.sock.peer.addr',
  'net.sock.peer.name',
  'network.peer.address',
] as const;

/** Span attributes that hold a URL or its query. */
export const URL_ATTRIBUTES = ['url.full', 'url.query', 'http.target', 'http.url'] as const;

/** Query parameters whose values are credentials. */
const SECRET_PARAMS = new Set([
  'token',
  'session',
  'session_id',
  'sid',
  'secret',
  'api_secret',
  'password',
  '_csrf',
]);

export const REDACTED = '[redacted]';

/**
 * The URL (absolute, a path with a query, or a bare query) with the values of secret query
 * parameters replaced; anything else kept as it was written.
 */
export function redactUrl(value: string): string {
  const q = value.indexOf('?');
  const bare = q === -1 && value.includes('=') && !value.includes('/');
  if (q === -1 && !bare) return value;
  const head = bare ? '' : value.slice(0, q + 1);
  const query = bare ? value : value.slice(q + 1);
  const hash = query.indexOf('#');
  const params = hash === -1 ? query : query.slice(0, hash);
  const fragment = hash === -1 ? '' : query.slice(hash);
  const redacted = params
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1) return pair;
      const name = safeDecode(pair.slice(0, eq)).toLowerCase();
      return SECRET_PARAMS.has(name) ? `${pair.slice(0, eq)}=${REDACTED}` : pair;
    })
    .join('&');
  return `${head}${redacted}${fragment}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The span's attributes without client addresses and with secret URL parameters redacted. */
export function redactAttributes(attributes: ReadableSpan['attributes']) {
  let changed = false;
  const out: Record<string, ReadableSpan['attributes'][string]> = {};
  for (const [key, value] of Object.entries(attributes)) {
    if ((CLIENT_ADDRESS_ATTRIBUTES as readonly string[]).includes(key)) {
      changed = true;
      continue;
    }
    if ((URL_ATTRIBUTES as readonly string[]).includes(key) && typeof value === 'string') {
      const redacted = redactUrl(value);
      changed ||= redacted !== value;
      out[key] = redacted;
      continue;
    }
    out[key] = value;
  }
  return changed ? out : attributes;
}

/** Wraps the exporter: every span goes out with its attributes redacted. */
export class RedactingSpanExporter implements SpanExporter {
  constructor(private readonly inner: SpanExporter) {}

  export(spans: ReadableSpan[], done: ExportDone): void {
    this.inner.export(spans.map(redactSpan), done);
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

function redactSpan(span: ReadableSpan): ReadableSpan {
  const attributes = redactAttributes(span.attributes);
  if (attributes === span.attributes) return span;
  // A view of the span with other attributes: methods and every other field come from it.
  return Object.create(span, {
    attributes: { value: attributes, enumerable: true },
  }) as ReadableSpan;
}
