/** The delivery log of an endpoint, and sending a delivery again. */
import type { Paginated } from '@aff/contracts';
import { errors, paginate, type PageRequest } from '@aff/api';
import type { EndpointUseCases } from './endpoints';
import { toDeliveryView, type DeliveryView } from './views';
import type {
  AttemptLog,
  CallContext,
  DeliveryQueue,
  DeliverySchedule,
  DeliveryStore,
} from './ports';
import { toDue, type AttemptRecord, type DeliveryState } from './records';

export class DeliveryUseCases {
  constructor(
    private readonly deliveries: DeliveryStore,
    private readonly attempts: AttemptLog,
    private readonly schedule: DeliverySchedule,
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
    const result = await this.deliveries.pageOfEndpoint(
      ctx.merchantId,
      endpointId,
      states,
      page.skip,
      page.limit,
    );
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
