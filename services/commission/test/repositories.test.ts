/**
 * The commission service's stores over the real MongoDB-protocol server: a duplicate key (a
 * sale's charge recorded twice, a second commission of one sale) is the domain's
 * `DuplicateError`, and the events of a write are relayed by the store once, after it.
 */
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import type { EventEnvelope } from '@aff/contracts';
import type { PendingEvent } from '@aff/messaging';
import { connectMongo } from '@aff/mongo';
import { CommissionRepository } from '../src/data/commission.repository';
import { commissionModel } from '../src/data/commission.schema';
import { SaleRepository } from '../src/data/sale.repository';
import { saleModel } from '../src/data/sale.schema';
import { DuplicateError } from '../src/domain/ports';
import type { CommissionRecord, SaleRecord } from '../src/domain/records';
import { affiliateView, campaignView } from '../../../test/support/view-fixtures';

let mongo: Connection;
let relayed: PendingEvent[];
let sales: SaleRepository;
let commissions: CommissionRepository;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `commission_repos_test_${Date.now()}`);
  const models = [saleModel(mongo), commissionModel(mongo)] as const;
  await Promise.all(models.map((model) => model.init()));
  const relay = { relay: (pending: PendingEvent[]) => relayed.push(...pending) };
  sales = new SaleRepository(models[0], relay);
  commissions = new CommissionRepository(models[1], relay);
});
beforeEach(() => {
  relayed = [];
});
afterAll(async () => {
  await mongo.dropDatabase();
  await mongo.close();
});

const event = (merchantId: string): EventEnvelope =>
  ({
    id: randomUUID(),
    type: 'sale.created',
    merchant_id: merchantId,
    occurred_at: new Date().toISOString(),
    data: {},
  }) as unknown as EventEnvelope;

function sale(merchantId: string, id: string, chargeId: string): SaleRecord {
  const now = new Date();
  return {
    _id: id,
    merchant_id: merchantId,
    processor_charge_id: chargeId,
    processor_account_id: null,
    referral_id: 'r1',
    affiliate_id: 'a1',
    currency: 'USD',
    charged_at: now,
    invoiced_at: null,
    charge_amount_cents: 1000,
    refund_amount_cents: 0,
    tax_amount_cents: 0,
    sale_amount_cents: 1000,
    referral: {} as SaleRecord['referral'],
    affiliate: affiliateView(),
    created_at: now,
    updated_at: now,
  };
}

function commission(merchantId: string, saleId: string): CommissionRecord {
  const now = new Date();
  return {
    _id: randomUUID(),
    merchant_id: merchantId,
    sale_id: saleId,
    referral_id: 'r1',
    affiliate_id: 'a1',
    campaign: campaignView(),
    base_amount: 100,
    amount: 100,
    currency: 'USD',
    state: 'pending',
    due_at: now,
    paid_at: null,
    voided_at: null,
    payout_id: null,
    created_at: now,
    updated_at: now,
  };
}

it('relays a sale’s events after its insert, and answers DuplicateError for the same charge', async () => {
  const merchant = randomUUID();
  const first = event(merchant);
  await sales.insert(sale(merchant, randomUUID(), 'ch_1'), [first], {});
  expect(relayed.map((p) => p.event.id)).toEqual([first.id]);
  await expect(
    sales.insert(sale(merchant, randomUUID(), 'ch_1'), [event(merchant)], {}),
  ).rejects.toBeInstanceOf(DuplicateError);
  expect(relayed).toHaveLength(1);
});

it('answers DuplicateError for a second commission of one sale', async () => {
  const merchant = randomUUID();
  await commissions.insert(commission(merchant, 's1'), [], {});
  await expect(commissions.insert(commission(merchant, 's1'), [], {})).rejects.toBeInstanceOf(
    DuplicateError,
  );
  expect(await commissions.findBySale(merchant, 's1')).not.toBeNull();
});
