/** Reading processor events for attribution: the checked object, its customer, metadata and ids. */
import { deterministicId, type EventEnvelope, type ProcessorEvent } from '@aff/contracts';
import { AppError } from '@aff/api';
import type { CallContext } from './ports';

export function parse<T>(
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } },
  value: unknown,
  event: ProcessorEvent,
): T {
  const result = schema.safeParse(value);
  if (!result.success) {
    // Retrying cannot fix a malformed object: terminate instead of looping.
    throw new AppError(
      'unprocessable',
      `Malformed ${event.type} object in processor event ${event.id}`,
    );
  }
  return result.data;
}

/** The processor customer an event is about, read before the object is validated. */
export function customerIdOf(event: ProcessorEvent): string | undefined {
  const object = event.data.object as { id?: unknown; customer?: unknown };
  const id = event.type.startsWith('customer.') ? object.id : object.customer;
  return typeof id === 'string' && id.length > 0 ? id : undefined;
}

export function metadataString(
  metadata: Record<string, unknown> | null | undefined,
  key: string,
): string | undefined {
  const value = metadata?.[key];
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

export function lower(email: string | null | undefined): string | null {
  return email ? email.trim().toLowerCase() : null;
}

export function seed(ctx: CallContext, event: ProcessorEvent): string {
  return `${ctx.merchantId}:${event.id}`;
}

export function withId<T extends EventEnvelope>(event: T, idSeed: string): T {
  return { ...event, id: deterministicId(`${idSeed}:${event.type}`) };
}
