/**
 * Runs one page request through the Express app without a socket: a real `IncomingMessage`
 * carrying the forwarded method, URL, headers and body, and a `ServerResponse` whose output is
 * collected instead of written. The pages keep Express's own parsing, redirects and headers,
 * so they answer exactly as they did when the gateway served them.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { Express } from 'express';
import type { PageReply, pageRequestSchema } from '@aff/contracts';
import type { z } from 'zod';

type ParsedPageRequest = z.output<typeof pageRequestSchema>;

export function dispatchPage(
  app: Express,
  request: ParsedPageRequest,
  requestId: string,
): Promise<PageReply> {
  const body = Buffer.from(request.body, 'base64');
  const req = new IncomingMessage(fakeSocket(request.secure));
  req.method = request.method;
  req.url = request.query ? `${request.path}?${request.query}` : request.path;
  req.headers = {
    ...request.headers,
    host: 'web',
    ...(body.length > 0 ? { 'content-length': String(body.length) } : {}),
  };
  if (body.length > 0) req.push(body);
  req.push(null);

  return new Promise<PageReply>((resolve, reject) => {
    const res = new ServerResponse(req);
    const chunks: Buffer[] = [];
    const collect = (chunk: unknown, encoding?: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      chunks.push(
        Buffer.isBuffer(chunk)
          ? chunk
          : Buffer.from(
              String(chunk),
              typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8',
            ),
      );
    };
    res.write = ((chunk: unknown, encoding?: unknown) => {
      collect(chunk, encoding);
      return true;
    }) as typeof res.write;
    res.end = ((chunk?: unknown, encoding?: unknown) => {
      collect(chunk, encoding);
      const signedIn = (res as ServerResponse & { locals: { signedIn?: PageReply['signed_in'] } })
        .locals.signedIn;
      resolve({
        status: res.statusCode,
        headers: headersOf(res),
        // Express sends a page as one Buffer: read as it is, not copied into another first.
        body: (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8'),
        ...(signedIn ? { signed_in: signedIn } : {}),
      });
      return res;
    }) as typeof res.end;
    // Read by the pages (request ids in calls and logs), as the gateway's middleware set it.
    Object.assign(res, { locals: { requestId } });
    // The app ends every request itself (its last handlers answer 404 and 500); a throw while
    // it is set up is the only way out without an answer.
    try {
      app(req, res);
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

/**
 * A socket that is never connected (no reads, no writes): Express reads only `encrypted` of it,
 * which makes `req.secure` true when the gateway was reached over HTTPS.
 */
function fakeSocket(secure: boolean): Socket {
  return Object.assign(new Socket(), { encrypted: secure });
}

function headersOf(res: ServerResponse): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(res.getHeaders())) {
    if (value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.map(String) : String(value);
  }
  return headers;
}
