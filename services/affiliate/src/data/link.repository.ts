/** Affiliate links over MongoDB: the `LinkStore` port (see outbox-repository.ts for writes). */
import type { FilterQuery } from 'mongoose';
import type { LinkFilters, LinkStore, Page } from '../domain/ports';
import type { LinkRecord } from '../domain/records';
import type { LinkDocument } from './link.schema';
import { mapDuplicate } from '@aff/mongo';
import { OutboxRepository, UNIQUE_KEY_TAKEN } from './outbox-repository';

export class LinkRepository extends OutboxRepository<LinkRecord> implements LinkStore {
  findByToken(merchantId: string, token: string): Promise<LinkRecord | null> {
    return this.repo.findOne(merchantId, { token });
  }

  findByAffiliates(merchantId: string, affiliateIds: string[], limit: number) {
    return this.repo.findMany(merchantId, { affiliate_id: { $in: affiliateIds } }, limit);
  }

  page(
    merchantId: string,
    filters: LinkFilters,
    skip: number,
    limit: number,
  ): Promise<Page<LinkRecord>> {
    const query: FilterQuery<LinkDocument> = {};
    if (filters.token) query.token = filters.token;
    if (filters.affiliate_id) query.affiliate_id = filters.affiliate_id;
    return this.repo.page(merchantId, query, skip, limit);
  }

  async insert(record: LinkRecord): Promise<LinkRecord> {
    return (await mapDuplicate(this.repo.insert(record), UNIQUE_KEY_TAKEN)).record;
  }

  deleteById(merchantId: string, id: string): Promise<void> {
    return this.repo.deleteById(merchantId, id);
  }
}
