/** Verified processor events from the gateway's hook, handled one at a time, in order. */
import type { EventEnvelope, ProcessorReceived } from '@aff/contracts';
import { currentEventContext } from '@aff/messaging';
import type { AttributionUseCases } from '../domain/attribution';

export const PROCESSOR_SUBJECTS = ['evt.processor.received'];

export function processorHandler(attribution: AttributionUseCases) {
  return async (event: EventEnvelope): Promise<void> => {
    const { event: processorEvent } = event.data as ProcessorReceived;
    await attribution.handle(
      { merchantId: event.merchant_id, events: currentEventContext() },
      processorEvent,
    );
  };
}
