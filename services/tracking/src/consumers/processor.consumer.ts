/** Verified processor events from the gateway's hook, in order per processor customer. */
import type { EventType } from '@aff/contracts';
import { eventHandlers, internalCallContext } from '@aff/messaging';
import type { AttributionUseCases } from '../domain/attribution';

export const PROCESSOR_EVENT_TYPE = 'processor.received' satisfies EventType;

/** The partitioned consumers take the subjects from the type; this gives the typed handler. */
export function processorConsumer(attribution: AttributionUseCases) {
  const { handle } = eventHandlers({
    'processor.received': (data, { event }) =>
      attribution.handle(internalCallContext(event.merchant_id), data.event),
  });
  return { handle };
}
