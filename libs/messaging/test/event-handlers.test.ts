/** Typed handlers per event type: subjects from the table, data checked before a handler runs. */
import { buildEvent, type EventEnvelope } from '@aff/contracts';
import { isAppError } from '@aff/api';
import { createLogger } from '@aff/logging';
import { eventHandlers, withEnvelope } from '../src';

const log = createLogger('event-handlers-test', 'silent');
const delivery = { count: 1 };

const refund = {
  processor_event_id: 'evt_1',
  charge: { id: 'ch_1', customer: 'cus_1', amount: 1000, amount_refunded: 500, currency: 'usd' },
  referral_id: 'ref_1',
};

it('derives the subjects from the table and hands each handler its typed data', async () => {
  const seen: string[] = [];
  const consumer = eventHandlers({
    'charge.refund_attributed': async (data, { event, delivery: d }) => {
      // Typed: these compile without a cast.
      seen.push(
        `${event.merchant_id}:${data.referral_id}:${data.charge.amount_refunded}:${d.count}`,
      );
    },
    'coupon_referral.updated': async (data) => {
      seen.push(`${data.coupon_id}:${data.lead}`);
    },
  });
  expect(consumer.filterSubjects).toEqual([
    'evt.charge.refund_attributed',
    'evt.coupon_referral.updated',
  ]);
  await consumer.handle(buildEvent('charge.refund_attributed', 'm_1', refund), log, delivery);
  await consumer.handle(
    buildEvent('coupon_referral.updated', 'm_1', {
      coupon_id: 'cp_1',
      referral_id: 'ref_1',
      lead: true,
      conversion: false,
    }),
    log,
    delivery,
  );
  expect(seen).toEqual(['m_1:ref_1:500:1', 'cp_1:true']);
});

it('rejects malformed data as poison (not retryable), naming the field, before the handler', async () => {
  let ran = false;
  const consumer = eventHandlers({
    'charge.refund_attributed': async () => {
      ran = true;
    },
  });
  const malformed = {
    ...buildEvent('charge.refund_attributed', 'm_1', refund),
    data: { ...refund, referral_id: 42 },
  } as EventEnvelope;
  const error = await consumer.handle(malformed, log, delivery).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isAppError(error) && !error.retryable).toBe(true);
  expect(String((error as Error).message)).toMatch(/referral_id/);
  expect(ran).toBe(false);
});

it('ignores a type the table has no handler for', async () => {
  let ran = false;
  const consumer = eventHandlers({
    'charge.refund_attributed': async () => {
      ran = true;
    },
  });
  const other = { ...buildEvent('charge.refund_attributed', 'm_1', refund), type: 'sale.created' };
  await consumer.handle(other as EventEnvelope, log, delivery);
  expect(ran).toBe(false);
});

// That a handler of the wrong data type does not compile is checked by tsc, not jest:
// event-handlers.type-test.ts.

it('runs an envelope handler table as a consumer: same subjects, checked data and the envelope', async () => {
  const seen: string[] = [];
  const consumer = eventHandlers(
    withEnvelope({
      'charge.refund_attributed': async (data, event) => {
        seen.push(`${event.merchant_id}:${event.id === '' ? '' : 'id'}:${data.referral_id}`);
      },
    }),
  );
  expect(consumer.filterSubjects).toEqual(['evt.charge.refund_attributed']);
  await consumer.handle(buildEvent('charge.refund_attributed', 'm_2', refund), log, delivery);
  expect(seen).toEqual(['m_2:id:ref_1']);
  const malformed = {
    ...buildEvent('charge.refund_attributed', 'm_2', refund),
    data: { ...refund, referral_id: 42 },
  } as EventEnvelope;
  await expect(consumer.handle(malformed, log, delivery)).rejects.toThrow(/referral_id/);
  expect(seen).toHaveLength(1);
});
