/** An enabled endpoint subscribed to everything, of a merchant of its own, as a store keeps it. */
import { randomUUID } from 'node:crypto';
import type { EndpointRecord } from '../../src/domain/records';

export function anEndpoint(fields: Partial<EndpointRecord> = {}): EndpointRecord {
  const now = new Date();
  return {
    _id: randomUUID(),
    merchant_id: randomUUID(),
    url: 'https://example.com/hook',
    events: ['*'],
    enabled: true,
    secret: 'whsec_AAAA',
    created_at: now,
    updated_at: now,
    ...fields,
  };
}
