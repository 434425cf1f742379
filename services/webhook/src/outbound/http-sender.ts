/**
 * Sends signed webhook requests over node:http(s): keep-alive connections, a hard deadline per
 * request, no redirects followed (only a 200 counts), and private targets refused unless
 * allowed — IP literals before connecting, host names when they are resolved.
 */
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  propagation,
  trace,
} from '@opentelemetry/api';
import { isPrivateAddress, literalAddress } from '../domain/address-policy';
import type { OutboundRequest, SendResult, TraceCarrier, WebhookSender } from '../domain/ports';
import { RefusedTargetError, guardedLookup } from './guarded-lookup';

export interface HttpSenderOptions {
  timeoutMs: number;
  allowPrivateTargets: boolean;
  userAgent?: string;
}

const tracer = trace.getTracer('@aff/webhook');

export class HttpWebhookSender implements WebhookSender {
  private readonly httpAgent = new http.Agent({ keepAlive: true });
  private readonly httpsAgent = new https.Agent({ keepAlive: true });
  private readonly lookup;

  constructor(private readonly options: HttpSenderOptions) {
    this.lookup = options.allowPrivateTargets ? undefined : guardedLookup();
  }

  async send(request: OutboundRequest, carrier: TraceCarrier): Promise<SendResult> {
    const parent = propagation.extract(ROOT_CONTEXT, carrier);
    const span = tracer.startSpan(
      'webhook deliver',
      { kind: SpanKind.PRODUCER, attributes: { 'webhook.id': request.headers['webhook-id'] } },
      parent,
    );
    // The receiver sees the delivery in the trace of the call that caused the event; injected
    // here, so it does not depend on the HTTP client being instrumented (it is not without an
    // exporter: libs/telemetry).
    const active = trace.setSpan(parent, span);
    const headers: Record<string, string> = { ...request.headers };
    propagation.inject(active, headers);
    const result = await context.with(active, () => this.post({ ...request, headers }));
    if (result.status !== null) span.setAttribute('http.response.status_code', result.status);
    if (result.status !== 200)
      span.setStatus({ code: SpanStatusCode.ERROR, message: result.error ?? undefined });
    span.end();
    return result;
  }

  private post(request: OutboundRequest): Promise<SendResult> {
    const started = performance.now();
    const url = new URL(request.url);
    const literal = literalAddress(url.hostname);
    if (!this.options.allowPrivateTargets && literal && isPrivateAddress(literal)) {
      return Promise.resolve(failure(started, new RefusedTargetError(url.hostname, literal)));
    }
    const secure = url.protocol === 'https:';
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const settle = (result: SendResult) => {
        if (settled) return;
        settled = true;
        resolve(result);
      };
      const req = (secure ? https : http).request(
        url,
        {
          method: 'POST',
          agent: secure ? this.httpsAgent : this.httpAgent,
          headers: {
            ...request.headers,
            'content-length': String(Buffer.byteLength(request.body)),
            'user-agent': this.options.userAgent ?? 'AffiliatePlatform-Webhooks/1.0',
          },
          ...(this.lookup ? { lookup: this.lookup } : {}),
        },
        (res) => {
          // The answer is its status; the body is read only to free the connection.
          res.on('end', () => clearTimeout(deadline));
          res.on('error', () => undefined);
          res.resume();
          settle({
            status: res.statusCode ?? null,
            durationMs: performance.now() - started,
            error: null,
            retryAfterMs: retryAfterMs(res.headers['retry-after']),
          });
        },
      );
      // One deadline for connecting, sending and the answer; a body that trickles on is cut off too.
      const deadline = setTimeout(
        () => req.destroy(new Error(`Timed out after ${this.options.timeoutMs} ms`)),
        this.options.timeoutMs,
      );
      req.on('error', (error) => {
        clearTimeout(deadline);
        settle(failure(started, error));
      });
      req.end(request.body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

function failure(started: number, error: Error): SendResult {
  return {
    status: null,
    durationMs: performance.now() - started,
    error: error.message || error.name,
    retryAfterMs: null,
  };
}

/** `Retry-After` as seconds or an HTTP date; anything else is ignored. */
export function retryAfterMs(header: string | undefined): number | null {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}
