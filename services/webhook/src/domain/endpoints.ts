/**
 * Webhook endpoint use cases: create (answers the secret once), read, list, update (enabling
 * again clears an automatic disabling), rotate the secret (answers the new one once), delete.
 */
import { OPERATIONS } from '@aff/contracts';
import type { OperationMap, Paginated, ValidatedBody } from '@aff/contracts';
import { AppError, errors, paginate, type PageRequest } from '@aff/api';
import { ALL_EVENTS, targetProblem } from './endpoint-rules';
import { rotatedSecret } from './secret-rotation';
import { generateSecret } from './signature';
import { toEndpointView, type EndpointView } from './views';
import type {
  AttemptLog,
  CallContext,
  DeliverySchedule,
  DeliveryStore,
  EndpointChanges,
  EndpointStore,
} from './ports';
import type { EndpointRecord } from './records';

const CREATE_FAILED = OPERATIONS.createWebhookEndpoint.invalid;
const UPDATE_FAILED = OPERATIONS.updateWebhookEndpoint.invalid;

/** The bodies as the contract map checked them before the handler ran. */
export type CreateEndpointBody = ValidatedBody<OperationMap['createWebhookEndpoint']>;
export type UpdateEndpointBody = ValidatedBody<OperationMap['updateWebhookEndpoint']>;

export class EndpointUseCases {
  constructor(
    private readonly endpoints: EndpointStore,
    private readonly deliveries: DeliveryStore,
    private readonly attempts: AttemptLog,
    private readonly schedule: DeliverySchedule,
    /** `WEBHOOK_ALLOW_PRIVATE_TARGETS`: IP literals of private addresses accepted (local use). */
    private readonly allowPrivateTargets: boolean,
    private readonly directory: { changed(merchantId: string): void },
    /** How long a rotated-out secret keeps signing (already scaled). */
    private readonly secretOverlapMs: number,
  ) {}

  async create(ctx: CallContext, input: CreateEndpointBody): Promise<EndpointView> {
    const problem = targetProblem(input.url, this.allowPrivateTargets);
    if (problem) throw errors.invalid(CREATE_FAILED, [problem]);
    const id = ctx.newId('webhook_endpoint');
    // A re-run of a request whose answer was lost (same Idempotency-Key): answer what it made,
    // with its secret as the lost answer had it.
    const made = ctx.mayBeRerun ? await this.endpoints.findById(ctx.merchantId, id) : null;
    if (made) return toEndpointView(made, true);
    const now = new Date();
    const record: EndpointRecord = {
      _id: id,
      merchant_id: ctx.merchantId,
      url: input.url,
      events: input.events ?? [ALL_EVENTS],
      enabled: input.enabled ?? true,
      secret: generateSecret(),
      created_at: now,
      updated_at: now,
    };
    const stored = await this.endpoints.insert(record);
    this.directory.changed(ctx.merchantId);
    return toEndpointView(stored, true);
  }

  async get(ctx: CallContext, id: string): Promise<EndpointView> {
    return toEndpointView(await this.getRecord(ctx, id));
  }

  async list(ctx: CallContext, page: PageRequest): Promise<Paginated<EndpointView>> {
    const result = await this.endpoints.page(ctx.merchantId, page.skip, page.limit);
    return paginate(
      result.items.map((record) => toEndpointView(record)),
      result.total,
      page,
    );
  }

  async update(ctx: CallContext, id: string, input: UpdateEndpointBody): Promise<EndpointView> {
    const problem =
      input.url === undefined ? null : targetProblem(input.url, this.allowPrivateTargets);
    if (problem) throw errors.invalid(UPDATE_FAILED, [problem]);
    const before = await this.getRecord(ctx, id);
    const set: EndpointChanges = { updated_at: new Date() };
    if (input.url !== undefined) set.url = input.url;
    if (input.events !== undefined) set.events = input.events;
    if (input.enabled !== undefined) set.enabled = input.enabled;
    if (input.enabled === true && !before.enabled) {
      // Enabled again: a fresh start, whatever disabled it (health counts from now on).
      Object.assign(set, { disabled_at: null, disabled_reason: null, failing_since: null });
    }
    const result = await this.endpoints.update(ctx.merchantId, id, set);
    if (!result) throw errors.notFound('Webhook endpoint', id);
    this.directory.changed(ctx.merchantId);
    return toEndpointView(result);
  }

  /**
   * A new signing secret, answered this once; the previous one keeps signing alongside it for
   * the overlap. Conditional on the secret read, so two rotations at once cannot lose one.
   */
  async rotateSecret(ctx: CallContext, id: string): Promise<EndpointView> {
    for (let tries = 0; ; tries++) {
      const record = await this.getRecord(ctx, id);
      const result = await this.endpoints.replaceSecret(
        ctx.merchantId,
        id,
        record.secret,
        rotatedSecret(record, new Date(), this.secretOverlapMs),
      );
      if (result) {
        this.directory.changed(ctx.merchantId);
        return toEndpointView(result, true);
      }
      if (tries >= 5) throw new AppError('conflict', 'The secret is being rotated; try again.');
    }
  }

  /** Deletes the endpoint, then its delivery log; nothing more is sent to it. */
  async delete(ctx: CallContext, id: string): Promise<{ id: string; deleted: true }> {
    await this.getRecord(ctx, id);
    await this.endpoints.delete(ctx.merchantId, id);
    this.directory.changed(ctx.merchantId);
    await this.schedule.removeForEndpoint(ctx.merchantId, id);
    await this.deliveries.deleteForEndpoint(ctx.merchantId, id);
    await this.attempts.deleteForEndpoint(ctx.merchantId, id);
    return { id, deleted: true };
  }

  async getRecord(ctx: CallContext, id: string): Promise<EndpointRecord> {
    const record = await this.endpoints.findById(ctx.merchantId, id);
    if (!record) throw errors.notFound('Webhook endpoint', id);
    return record;
  }
}
