/** Affiliate coupons over MongoDB: the `CouponStore` port (see outbox-repository.ts for writes). */
import type { FilterQuery } from 'mongoose';
import type { CouponStore, Page } from '../domain/ports';
import type { CouponRecord } from '../domain/records';
import type { CouponDocument } from './coupon.schema';
import { OutboxRepository } from './outbox-repository';

export class CouponRepository extends OutboxRepository<CouponRecord> implements CouponStore {
  findByCode(merchantId: string, code: string): Promise<CouponRecord | null> {
    return this.repo.findOne(merchantId, { code });
  }

  page(
    merchantId: string,
    filters: { affiliate_id?: string },
    skip: number,
    limit: number,
  ): Promise<Page<CouponRecord>> {
    const query: FilterQuery<CouponDocument> = {};
    if (filters.affiliate_id) query.affiliate_id = filters.affiliate_id;
    return this.repo.page(merchantId, query, skip, limit);
  }
}
