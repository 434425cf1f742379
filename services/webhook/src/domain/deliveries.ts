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
import { toDue, type DeliveryRecord, type DeliveryState, type LoggedAttempt } from './records';

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
    const views = await this.withAttempts(ctx.merchantId, result.items);
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
    const [view] = await this.withAttempts(ctx.merchantId, [record]);
    return view!;
  }

  /**
   * The deliveries as the REST API shows them, each with its attempts: embedded in it, plus,
   * for one stored before attempts were embedded (no `embedded_log`), its lines in the old
   * attempt log, read in one query for the page.
   */
  private async withAttempts(
    merchantId: string,
    records: DeliveryRecord[],
  ): Promise<DeliveryView[]> {
    const legacy = records.filter((d) => !d.embedded_log).map((d) => d._id);
    const byDelivery = new Map<string, LoggedAttempt[]>();
    for (const line of await this.attempts.forDeliveries(merchantId, legacy)) {
      byDelivery.set(line.delivery_id, [...(byDelivery.get(line.delivery_id) ?? []), line]);
    }
    return records.map((d) =>
      toDeliveryView(d, oldestFirst([...(byDelivery.get(d._id) ?? []), ...(d.attempts ?? [])])),
    );
  }
}

function oldestFirst(attempts: LoggedAttempt[]): LoggedAttempt[] {
  return attempts.sort(
    (a, b) =>
      new Date(a.started_at).getTime() - new Date(b.started_at).getTime() ||
      (a._id < b._id ? -1 : a._id > b._id ? 1 : 0),
  );
}
