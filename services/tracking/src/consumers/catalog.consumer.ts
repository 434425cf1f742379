/** Keeps the link, affiliate, campaign and coupon read models in step with the affiliate service. */
import { eventHandlers, withEnvelope, type OrderingKeyTable } from '@aff/messaging';
import { catalogEvents } from '../data/catalog-events';
import type { CatalogRepository } from '../data/catalog.repository';

/** Versions of one record in order; the read models also keep only the newest. */
export function catalogConsumer(catalog: CatalogRepository) {
  const table = catalogEvents(catalog);
  const byId = (data: { id: string }) => data.id;
  const keys: OrderingKeyTable = Object.fromEntries(Object.keys(table).map((t) => [t, byId]));
  return eventHandlers(withEnvelope(table), keys);
}
