/**
 * A direct pay and an export racing for one payout: exactly one of them may win, or the
 * payout would be in the merchant's file and paid through the API as well. The interleaving
 * that matters is forced here: the export takes the payout while pay is between its checks and
 * its payment request. The stores are in memory; the conditional update they stand for is
 * `PayoutHoldRepository.take` / `takeForPay` (one field, `export_id`, guarded on `null`).
 */
import { internalCallContext } from '@aff/messaging';
import { PayPayout, IN_EXPORT } from '../src/domain/pay-payout';
import { PAY_HOLD } from '../src/domain/records';

const MERCHANT = 'm1';
const PAYOUT = 'p1';

/** The payout's hold field, with the same guards as the repository's conditional updates. */
class HoldField {
  exportId: string | null = null;

  take(exportId: string): boolean {
    if (this.exportId !== null) return false;
    this.exportId = exportId;
    return true;
  }

  takeForPay(): boolean {
    if (this.exportId !== null && this.exportId !== PAY_HOLD) return false;
    this.exportId = PAY_HOLD;
    return true;
  }
}

function payWith(hold: HoldField, duringRequest: () => void) {
  const requested: string[] = [];
  const pay = new PayPayout(
    { findVisible: async () => ({ _id: PAYOUT, state: 'due' }) } as never,
    {
      request: async (_m: string, id: string) => {
        duringRequest();
        requested.push(id);
        return true;
      },
    } as never,
    { record: async () => undefined } as never,
    { refresh: async () => ({}) } as never,
    { presentOne: async () => ({ id: PAYOUT }) } as never,
    { enqueue: () => undefined },
    { takeForPay: async () => hold.takeForPay() },
  );
  const call = () => pay.pay(internalCallContext(MERCHANT, {}), PAYOUT, 'key_1');
  return { call, requested };
}

it('an export that tries to take the payout while pay is requesting its payment loses', async () => {
  const hold = new HoldField();
  let exportTook: boolean | undefined;
  const { call, requested } = payWith(hold, () => {
    exportTook = hold.take('export-1');
  });
  await call();
  expect(requested).toEqual([PAYOUT]);
  expect(exportTook).toBe(false);
  expect(hold.exportId).toBe(PAY_HOLD);
});

it('a pay for a payout an export already took is refused before any payment is requested', async () => {
  const hold = new HoldField();
  expect(hold.take('export-1')).toBe(true);
  const { call, requested } = payWith(hold, () => undefined);
  await expect(call()).rejects.toMatchObject({ status: 422, details: [IN_EXPORT] });
  expect(requested).toEqual([]);
  expect(hold.exportId).toBe('export-1');
});

it('a pay retried after a crash between its hold and its request goes on', async () => {
  const hold = new HoldField();
  expect(hold.takeForPay()).toBe(true);
  const { call, requested } = payWith(hold, () => undefined);
  await call();
  expect(requested).toEqual([PAYOUT]);
});
