/**
 * Completes payments in this process (fastq, bounded), and takes over the abandoned ones: a
 * payment still unfinished `delayMs + leaseMs` after it was asked for belongs to a process that
 * died or failed. Looked for at start and every `sweepMs`; running one twice is harmless.
 */
import fastq from 'fastq';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '@aff/logging';
import type { PaymentStepRepository } from '../data/payment-step.repository';
import type { CompletePayment } from '../domain/complete-payment';
import type { PaymentQueue } from '../domain/ports';

export interface PaymentWorkerOptions {
  concurrency: number;
  delayMs: number;
  leaseMs: number;
  sweepMs: number;
}

interface Job {
  merchantId: string;
  payoutId: string;
  /** Taken over from the sweep: its wait is over already. */
  resumed: boolean;
}

export class PaymentWorker implements PaymentQueue {
  private readonly queue: fastq.queueAsPromised<Job>;
  /** Payments queued or running here, so a sweep does not queue one twice. */
  private readonly inFlight = new Set<string>();
  private readonly abort = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;

  constructor(
    private readonly steps: PaymentStepRepository,
    private readonly payments: CompletePayment,
    private readonly opts: PaymentWorkerOptions,
    private readonly log: Logger,
  ) {
    this.queue = fastq.promise((job: Job) => this.run(job), opts.concurrency);
  }

  enqueue(merchantId: string, payoutId: string, resumed = false): void {
    if (this.inFlight.has(payoutId) || this.abort.signal.aborted) return;
    this.inFlight.add(payoutId);
    void this.queue
      .push({ merchantId, payoutId, resumed })
      .finally(() => this.inFlight.delete(payoutId));
  }

  start(): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), this.opts.sweepMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    // Waiting payments stay unfinished in the database; a sweep resumes them.
    this.abort.abort();
    this.queue.kill();
    await this.sweeping;
    await this.queue.drained();
  }

  async sweep(): Promise<number> {
    const abandonedBefore = new Date(Date.now() - this.opts.delayMs - this.opts.leaseMs);
    const found = await this.steps.unfinished(abandonedBefore, 100);
    for (const step of found) {
      if (this.inFlight.has(step.payout_id)) continue;
      this.log.info({ payoutId: step.payout_id }, 'unfinished payment resumed');
      this.enqueue(step.merchant_id, step.payout_id, true);
    }
    return found.length;
  }

  private tick(): void {
    this.sweeping ??= this.sweep()
      .then(() => undefined)
      .catch((error: unknown) => this.log.warn({ err: error }, 'payment sweep failed'))
      .finally(() => {
        this.sweeping = undefined;
      });
  }

  private async run(job: Job): Promise<void> {
    try {
      if (!job.resumed && this.opts.delayMs > 0) {
        await delay(this.opts.delayMs, undefined, { signal: this.abort.signal });
      }
      if (this.abort.signal.aborted) return;
      await this.payments.complete(job.merchantId, job.payoutId);
      this.log.info({ payoutId: job.payoutId }, 'payment completed');
    } catch (error) {
      if (this.abort.signal.aborted) return;
      // Still unfinished in the database: a later sweep (here or in a replica) tries again.
      this.log.warn({ err: error, payoutId: job.payoutId }, 'payment completion failed');
    }
  }
}
