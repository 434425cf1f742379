/**
 * Page requests: the gateway hands every request under a page prefix (`/portal`, `/console`)
 * to the web service as one internal operation, and writes back the status, headers and body it
 * answers. Only the request headers pages read are carried; the rest never leave the gateway.
 */
import { z } from 'zod';
import { defineOperation } from './operation';

/** The URL prefixes the web service answers; the gateway routes each to `renderPage`. */
export const PAGE_PREFIXES = ['/portal', '/console'] as const;

/** Request headers a page may read (cookies, form type, language, redirect negotiation). */
export const PAGE_REQUEST_HEADERS = [
  'cookie',
  'origin',
  'content-type',
  'content-encoding',
  'accept',
  'accept-language',
] as const;

/** The largest form body the gateway forwards (raw; base64 on the wire stays under NATS's 1 MB). */
export const PAGE_BODY_LIMIT_BYTES = 256 * 1024;

export const pageRequestSchema = z.object({
  method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']),
  /** The path as the browser sent it, e.g. `/portal/commissions/<id>`. */
  path: z
    .string()
    .max(2048)
    .refine((path) => PAGE_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`)), {
      error: 'not a page path',
    }),
  /** The raw query string, without `?` (it may carry a magic-link token: never log it). */
  query: z.string().max(8192).default(''),
  headers: z.partialRecord(z.enum(PAGE_REQUEST_HEADERS), z.string().max(8192)).default({}),
  /** The raw request body, base64 (forms are parsed by the page, as the browser sent them). */
  body: z
    .string()
    .max(Math.ceil(PAGE_BODY_LIMIT_BYTES / 3) * 4 + 4)
    .default(''),
  /** The request reached the gateway over HTTPS (its trust-proxy setting decides). */
  secure: z.boolean().default(false),
});
export type PageRequest = z.input<typeof pageRequestSchema>;

export const pageReplySchema = z.object({
  status: z.number().int().min(100).max(599),
  /** Response headers by lower-case name; `set-cookie` may repeat. */
  headers: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
  /** The response body as text (pages, redirects and errors are all text). */
  body: z.string(),
  /**
   * Set when the request signed an affiliate in. The gateway, which alone holds the client's
   * address and the merchants' address salts, then publishes the internal
   * `affiliate.signed_in` with the address hash (docs/architecture.md, "Sign-ins").
   */
  signed_in: z.object({ merchant_id: z.string(), affiliate_id: z.string() }).optional(),
});
export type PageReply = z.infer<typeof pageReplySchema>;

/** Internal: the gateway forwards `/portal` and `/console` requests through this. */
export const renderPage = defineOperation({
  name: 'renderPage',
  owner: 'web',
  auth: 'internal',
  summary: 'Answer a request for a page of the portal or the console',
  input: pageRequestSchema,
  response: { status: 200, description: 'The HTTP answer of the page', body: pageReplySchema },
  errors: [400],
});
