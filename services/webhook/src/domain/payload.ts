/** The body of a webhook request (spec §6) and the record it carries. Pure functions. */

export const API_VERSION = 'v1';

/**
 * The record as webhooks show it: the REST JSON, plus the `referrals` count the spec adds to
 * affiliates and links embedded in webhook payloads. A referral is a unique visit through a
 * link, so `referrals` is the `visitors` count the REST record already carries.
 */
export function toWebhookObject(eventType: string, data: unknown): unknown {
  const aggregate = eventType.split('.')[0];
  const kind =
    aggregate === 'affiliate' ? 'affiliate' : aggregate === 'affiliate_link' ? 'link' : null;
  return withReferrals(data, kind);
}

type Kind = 'affiliate' | 'link' | null;

function withReferrals(value: unknown, kind: Kind): unknown {
  if (Array.isArray(value)) return value.map((item) => withReferrals(item, kind));
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(record)) out[key] = withReferrals(child, kindOf(key));
  if (kind && typeof record.visitors === 'number' && !('referrals' in record)) {
    out.referrals = record.visitors;
  }
  return out;
}

function kindOf(key: string): Kind {
  if (key === 'affiliate') return 'affiliate';
  if (key === 'link' || key === 'links') return 'link';
  return null;
}

export interface PayloadSource {
  object_json: string;
  event_id: string;
  event_type: string;
  event_created_at: string;
}

/** `{object, event, request}`; the stored object JSON is spliced in as it is, never re-encoded. */
export function buildBody(source: PayloadSource, requestId: string): string {
  const event = JSON.stringify({
    id: source.event_id,
    type: source.event_type,
    created_at: source.event_created_at,
    api_version: API_VERSION,
  });
  return `{"object":${source.object_json},"event":${event},"request":${JSON.stringify({ id: requestId })}}`;
}
