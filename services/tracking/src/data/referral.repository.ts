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
}

export function customerKey(processorCustomerId: string): string {
  return `customer:${processorCustomerId}`;
}
