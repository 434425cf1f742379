/** Campaigns over MongoDB: the `CampaignStore` port (see outbox-repository.ts for writes). */
import type { CampaignStore, Page } from '../domain/ports';
import type { CampaignRecord } from '../domain/records';
import { OutboxRepository } from './outbox-repository';

export class CampaignRepository extends OutboxRepository<CampaignRecord> implements CampaignStore {
  findByIds(merchantId: string, ids: string[]): Promise<CampaignRecord[]> {
    return this.repo.findMany(merchantId, { _id: { $in: ids } });
  }

  findDefault(merchantId: string): Promise<CampaignRecord | null> {
    return this.repo.findOne(merchantId, { default_slot: 'default' });
  }

  page(merchantId: string, skip: number, limit: number): Promise<Page<CampaignRecord>> {
    return this.repo.page(merchantId, {}, skip, limit);
  }
}
