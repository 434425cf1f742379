/** A tiny OTLP/HTTP (JSON) receiver on 127.0.0.1 that keeps every span the services export. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  /** Attribute values as text (string, int, double or bool values). */
  attributes: Record<string, string>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}

interface OtlpTraces {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: { key: string; value: OtlpValue }[];
      }[];
    }[];
  }[];
}

export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpTraces;
          for (const rs of body.resourceSpans ?? []) {
            const service =
              rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ??
              '?';
            for (const ss of rs.scopeSpans ?? []) {
              for (const s of ss.spans ?? []) {
                spans.push({
                  service,
                  traceId: s.traceId,
                  spanId: s.spanId,
                  parentSpanId: s.parentSpanId || undefined,
                  name: s.name,
                  kind: s.kind,
                  attributes: Object.fromEntries(
                    (s.attributes ?? []).map((a) => [
                      a.key,
                      String(
                        a.value.stringValue ??
                          a.value.intValue ??
                          a.value.doubleValue ??
                          a.value.boolValue ??
                          '',
                      ),
                    ]),
                  ),
                });
              }
            }
          }
        } catch {
          // protobuf or junk: not what these tests send
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
