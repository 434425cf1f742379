/** The delivery log of an endpoint, and sending a delivery again. */
import type { Paginated } from '@aff/contracts';
import { errors, paginate, type PageRequest } from '@aff/api';
import type { FilterQuery } from 'mongoose';
import type { AttemptRecord } from '../data/attempt.schema';
import type { AttemptRepository } from '../data/attempt.repository';
import { toDue, type DeliveryRepository } from '../data/delivery.repository';
import type { DeliveryRecord, DeliveryState } from '../data/delivery.schema';
import type { ScheduleRepository } from '../data/schedule.repository';
import type { EndpointUseCases } from './endpoints';
import { toDeliveryView, type DeliveryView } from './views';
import type { CallContext, DeliveryQueue } from './ports';

export class DeliveryUseCases {
  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly attempts: AttemptRepository,
    private readonly schedule: ScheduleRepository,
    private readonly endpoints: EndpointUseCases,
    private readonly queue: DeliveryQueue,
  ) {}

  async list(
    ctx: CallContext,
    endpointId: string,
    states: DeliveryState[],
    page: PageRequest,
  ): Promise<Paginated<DeliveryView>> {
    await this.endpoints.getRecord(ctx, endpointId);
    const filter: FilterQuery<DeliveryRecord> = { endpoint_id: endpointId };
    if (states.length > 0) filter.state = { $in: states };
    const result = await this.deliveries.tenant.page(ctx.merchantId, filter, page.skip, page.limit);
    const attempts = await this.attempts.forDeliveries(
      ctx.merchantId,
      result.items.map((d) => d._id),
    );
    const byDelivery = new Map<string, AttemptRecord[]>();
    for (const attempt of attempts) {
      byDelivery.set(attempt.delivery_id, [
        ...(byDelivery.get(attempt.delivery_id) ?? []),
        attempt,
      ]);
    }
    const views = result.items.map((d) => toDeliveryView(d, byDelivery.get(d._id) ?? []));
    return paginate(views, result.total, page);
  }

  /**
   * Sends the delivery again, whatever its state: due at once, with the same `webhook-id` (it is
   * the same event) and a new 3-day retry window. Earlier attempts stay in the log.
   */
  async redeliver(ctx: CallContext, id: string): Promise<DeliveryView> {
    const record = await this.deliveries.requeue(ctx.merchantId, id, new Date());
    if (!record) throw errors.notFound('Webhook delivery', id);
    const due = toDue(record);
    await this.schedule.set(due);
    this.queue.offer([due]);
    const attempts = await this.attempts.forDeliveries(ctx.merchantId, [record._id]);
    return toDeliveryView(record, attempts);
  }
}
