/** Verified processor events from the gateway's hook, in order per processor customer. */
import type { EventEnvelope, EventType, ProcessorReceived } from '@aff/contracts';
import { currentEventContext } from '@aff/messaging';
import type { AttributionUseCases } from '../domain/attribution';

export const PROCESSOR_EVENT_TYPE = 'processor.received' satisfies EventType;

export function processorHandler(attribution: AttributionUseCases) {
  return async (event: EventEnvelope): Promise<void> => {
    const { event: processorEvent } = event.data as ProcessorReceived;
    await attribution.handle(
      { merchantId: event.merchant_id, events: currentEventContext() },
      processorEvent,
    );
  };
}
