import type { Model } from 'mongoose';
import { TenantRepository } from '@aff/mongo';
import type { ReferralRecord } from './referral.schema';

export class ReferralRepository extends TenantRepository<ReferralRecord> {
  constructor(model: Model<ReferralRecord>) {
    super(model);
  }

  findByCustomer(merchantId: string, processorCustomerId: string): Promise<ReferralRecord | null> {
    return this.findOne(merchantId, { customer_key: customerKey(processorCustomerId) });
  }

  findByIds(merchantId: string, ids: string[]): Promise<ReferralRecord[]> {
    return this.model
      .find({ _id: { $in: ids }, merchant_id: merchantId })
      .lean<ReferralRecord[]>()
      .exec();
  }
}

export function customerKey(processorCustomerId: string): string {
  return `customer:${processorCustomerId}`;
}
