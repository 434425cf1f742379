/**
 * How a patient integration talks to the gateway while it is faulted: at most `limit` requests
 * in flight, and a request that fails at the network, or is answered 5xx or 429, is sent again
 * unchanged (same Idempotency-Key, same processor event id) until it gets a real answer.
 * What it had to retry is counted: a retried visit may have been recorded the first time.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { request, type ApiResponse } from '../support/http';

export interface CallStats {
  requests: number;
  retried: number;
  networkErrors: number;
  serverErrors: Record<string, number>;
  /**
   * Answers that broke the API contract (thrown by the conformance check), by what was wrong,
   * with how many times: a finding, printed in the summary.
   */
  nonConforming: Record<string, number>;
  /** 409 answers for an Idempotency-Key a killed gateway left claimed (retried). */
  busyKeys: number;
}

export function newStats(): CallStats {
  return {
    requests: 0,
    retried: 0,
    networkErrors: 0,
    serverErrors: {},
    nonConforming: {},
    busyKeys: 0,
  };
}

export class ChaosClient {
  private inFlight = 0;
  private waiting: (() => void)[] = [];

  constructor(
    readonly baseUrl: string,
    readonly stats: CallStats,
    private readonly limit: number,
    /** Past this a call gives up and throws (the system never recovered). */
    private readonly giveUpMs = 10 * 60_000,
  ) {}

  private async slot(): Promise<() => void> {
    if (this.inFlight >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    this.inFlight++;
    return () => {
      this.inFlight--;
      this.waiting.shift()?.();
    };
  }

  /**
   * Sends until answered below 500 (and not 429). `onRetry` is told each time a send is
   * repeated, so the caller can note that the first one may have taken effect.
   */
  async send<T = any>(
    method: string,
    path: string,
    opts: Parameters<typeof request>[2] = {},
    /** `maybeDone`: the failed send may have taken effect (it reached a gateway). */
    onRetry?: (maybeDone: boolean) => void,
  ): Promise<ApiResponse<T>> {
    const deadline = Date.now() + this.giveUpMs;
    for (let attempt = 1; ; attempt++) {
      let res: ApiResponse<T> | undefined;
      let failure = '';
      // Refused connections and 503 (no replica took it) never ran; anything else may have.
      let maybeDone = true;
      const release = await this.slot();
      try {
        this.stats.requests++;
        res = await request<T>(method, path, { ...opts, baseUrl: this.baseUrl });
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error);
        if (failure.startsWith('Response does not conform')) {
          const what = failure.replace(/^.*?\(([^)]*)\) answered/, `${method} $1 answered`);
          this.stats.nonConforming[what] = (this.stats.nonConforming[what] ?? 0) + 1;
        } else {
          this.stats.networkErrors++;
          const code = (error as { cause?: { code?: string } }).cause?.code;
          if (code === 'ECONNREFUSED') maybeDone = false;
        }
      } finally {
        release();
      }
      // 409 "still in progress": a gateway died mid-request holding the key; retry shortly.
      const busyKey =
        res?.status === 409 &&
        /Idempotency-Key is still in progress/.test(JSON.stringify(res.body));
      if (busyKey) this.stats.busyKeys++;
      if (res && res.status < 500 && res.status !== 429 && !busyKey) return res;
      if (res?.status === 503) maybeDone = false;
      if (res) {
        const key = String(res.status);
        this.stats.serverErrors[key] = (this.stats.serverErrors[key] ?? 0) + 1;
        failure = `${res.status} ${JSON.stringify(res.body)}`;
      }
      if (Date.now() > deadline)
        throw new Error(`${method} ${path} never answered in ${this.giveUpMs} ms: ${failure}`);
      this.stats.retried++;
      onRetry?.(maybeDone);
      await delay(Math.min(250 * attempt, 3_000) + Math.random() * 250);
    }
  }
}
