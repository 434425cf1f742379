/**
 * Checks a processor event at the hook, its object too for the types tracking reads: a malformed
 * or oversized field is refused with 400 while the processor can still see it, instead of being
 * accepted and then dropped by tracking.
 */
import {
  processorEventSchema,
  processorObjectSchemas,
  validate,
  type ProcessorEvent,
  type Validated,
} from '@aff/contracts';

export function validProcessorEvent(input: unknown): Validated<ProcessorEvent> {
  const event = validate(processorEventSchema, input);
  if (!event.ok) return event;
  const objectSchema = processorObjectSchemas[event.value.type];
  if (!objectSchema) return event;
  const object = validate(objectSchema, event.value.data.object);
  return object.ok ? event : object;
}
