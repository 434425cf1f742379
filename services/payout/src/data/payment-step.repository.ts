/** Payment steps (see payment-step.schema.ts): insert once, read back, find unfinished jobs. */
import type { Model } from 'mongoose';
import type { EventContext } from '@aff/messaging';
import { ScopedRepository } from '@aff/mongo';
import type { PaymentStepStore } from '../domain/ports';
import type {
  PaymentStepName,
  PaymentStepRecord,
  PaymentSteps,
  StepFields,
} from '../domain/records';
import { stepId } from './payment-step.schema';

export class PaymentStepRepository implements PaymentStepStore {
  private readonly steps: ScopedRepository<PaymentStepRecord>;

  constructor(model: Model<PaymentStepRecord>) {
    this.steps = new ScopedRepository(model);
  }

  /** The pay call's claim on the payout; false when another call got there first. */
  async request(
    merchantId: string,
    payoutId: string,
    paidAt: Date,
    requestedBy: string | null,
    context: EventContext,
  ): Promise<boolean> {
    const created = await this.insert(merchantId, payoutId, 'requested', {
      paid_at: paidAt,
      paid_by_id: requestedBy,
      context: JSON.parse(JSON.stringify(context)) as EventContext,
    });
    return created !== null;
  }

  /** Inserts the step, or returns the one that was inserted first. */
  async insertOnce(
    merchantId: string,
    payoutId: string,
    step: 'recorded' | 'completed',
    fields: StepFields,
  ): Promise<PaymentStepRecord> {
    const created = await this.insert(merchantId, payoutId, step, fields);
    if (created) return created;
    const existing = await this.steps.findById(merchantId, stepId(payoutId, step));
    if (!existing) throw new Error(`payment step ${step} of ${payoutId} vanished`);
    return existing;
  }

  async stepsOf(merchantId: string, payoutId: string): Promise<PaymentSteps> {
    const names: PaymentStepName[] = ['requested', 'recorded', 'completed'];
    const found = await this.steps.findByIds(
      merchantId,
      names.map((n) => stepId(payoutId, n)),
    );
    return Object.fromEntries(found.map((s) => [s.step, s])) as PaymentSteps;
  }

  async isRequested(merchantId: string, payoutId: string): Promise<boolean> {
    return this.steps.exists(merchantId, { _id: stepId(payoutId, 'requested') });
  }

  /** Payments asked for before `olderThan` whose queued work has not finished (all merchants). */
  async unfinished(olderThan: Date, limit: number): Promise<PaymentStepRecord[]> {
    return this.steps.model
      .find({ step: 'requested', unfinished: true, created_at: { $lte: olderThan } })
      .sort({ created_at: 1 })
      .limit(limit)
      .lean<PaymentStepRecord[]>()
      .exec();
  }

  /** Idempotent; if a racing write undoes it, the sweep finds the job done and sets it again. */
  async finish(merchantId: string, payoutId: string): Promise<void> {
    await this.steps.updateOne(
      merchantId,
      { _id: stepId(payoutId, 'requested') },
      { $set: { unfinished: false } },
    );
  }

  private async insert(
    merchantId: string,
    payoutId: string,
    step: PaymentStepName,
    fields: StepFields,
  ): Promise<PaymentStepRecord | null> {
    const record: PaymentStepRecord = {
      _id: stepId(payoutId, step),
      merchant_id: merchantId,
      payout_id: payoutId,
      step,
      created_at: new Date(),
      paid_at: null,
      paid_by_id: null,
      context: null,
      unfinished: step === 'requested',
      commission_ids: [],
      amount: null,
      ...fields,
    };
    return (await this.steps.insertIfAbsent(record)) ? record : null;
  }
}
