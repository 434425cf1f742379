/**
 * Type-level test, checked by `npm run build` (`tsc -p tsconfig.json` covers every test folder)
 * and never run by jest: a handler table is typed per event type. Each `@ts-expect-error` fails
 * the build if the line below it ever compiles.
 */
import type { EventHandlerTable } from '../src';

export const typed: EventHandlerTable = {
  // The data of charge.refund_attributed is the contract's, read without a cast.
  'charge.refund_attributed': async (data) => void data.charge.amount_refunded,
};

export const wrongData: EventHandlerTable = {
  // @ts-expect-error the data of charge.refund_attributed has no `sale_id`
  'charge.refund_attributed': async (data: { sale_id: string }) => void data,
};

export const unknownType: EventHandlerTable = {
  // @ts-expect-error no event of this type is in the event map
  'charge.nonexistent': async () => undefined,
};
