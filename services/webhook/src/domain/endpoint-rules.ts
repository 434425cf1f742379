/**
 * Request bodies of webhook endpoints and the subscription rule. Messages follow the spec's
 * validation style, so schema issues can be shown as a 422's `details`.
 */
import { z } from 'zod';
import { PUBLIC_EVENT_TYPES, isHttpUrl, optionalBoolean } from '@aff/contracts';
import { PRIVATE_TARGET_MESSAGE, isPrivateAddress, literalAddress } from './address-policy';

/** Subscribes to every event type, including types added to the catalogue later. */
export const ALL_EVENTS = '*';
const KNOWN_TYPES: ReadonlySet<string> = new Set(PUBLIC_EVENT_TYPES);

/** `events[]=a&events[]=b`, a JSON array, or `events=a,b`; blanks dropped, duplicates merged. */
function eventList(raw: unknown): unknown {
  if (raw === undefined || raw === null) return undefined;
  const items = typeof raw === 'string' ? raw.split(',') : raw;
  if (!Array.isArray(items)) return raw;
  if (items.some((item) => typeof item !== 'string')) return raw;
  const names = (items as string[]).map((item) => item.trim()).filter(Boolean);
  return [...new Set(names)];
}

const eventsSchema = z.preprocess(
  eventList,
  z
    .array(z.string(), { error: 'Events must be a list of event types' })
    .min(1, { error: "Events can't be blank", abort: true })
    .superRefine((names, ctx) => {
      for (const name of names) {
        if (name !== ALL_EVENTS && !KNOWN_TYPES.has(name)) {
          ctx.addIssue({
            code: 'custom',
            message: `Events contains an unknown event type: ${name}`,
          });
        }
      }
    })
    .transform((names) => (names.includes(ALL_EVENTS) ? [ALL_EVENTS] : names)),
);

function urlSchema(allowPrivateTargets: boolean) {
  return z
    .string({ error: 'Url is invalid' })
    .trim()
    .min(1, { error: "Url can't be blank", abort: true })
    .max(2048, { error: 'Url is too long (maximum is 2048 characters)', abort: true })
    .refine(isHttpUrl, { error: 'Url must be an absolute http(s) URL', abort: true })
    .refine((url) => allowPrivateTargets || !isPrivateLiteral(url), {
      error: PRIVATE_TARGET_MESSAGE,
    });
}

/** Host names are checked when they are resolved, at every delivery; IP literals right away. */
function isPrivateLiteral(url: string): boolean {
  const address = literalAddress(new URL(url).hostname);
  return address !== null && isPrivateAddress(address);
}

export function endpointBodySchemas(allowPrivateTargets: boolean) {
  const url = urlSchema(allowPrivateTargets);
  return {
    create: z.object({
      url: z.preprocess((v) => v ?? '', url),
      events: eventsSchema.optional(),
      enabled: optionalBoolean('Enabled'),
    }),
    update: z.object({
      url: url.optional(),
      events: eventsSchema.optional(),
      enabled: optionalBoolean('Enabled'),
    }),
  };
}
export type EndpointBodySchemas = ReturnType<typeof endpointBodySchemas>;
export type CreateEndpointBody = z.infer<EndpointBodySchemas['create']>;
export type UpdateEndpointBody = z.infer<EndpointBodySchemas['update']>;

/** The filter values an endpoint matches for an event type. */
export function subscriptionKeys(eventType: string): string[] {
  return [eventType, ALL_EVENTS];
}

export function isPublicEventType(type: string): boolean {
  return KNOWN_TYPES.has(type);
}
