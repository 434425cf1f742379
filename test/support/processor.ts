/** Plays the payment processor: signs events with the merchant's signing secret and posts them. */
import { createHmac, randomUUID } from 'node:crypto';
import { request, type ApiResponse } from './http';
import type { TestMerchant } from './merchant';

export function sign(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/**
 * An event as the processor posts it: its JSON body and headers, the signature made with
 * `secret` at `timestamp` (now by default). Sending it again is the processor redelivering it.
 */
export function signedProcessorEvent(
  secret: string,
  event: { id: string; type: string; object: object; account: string },
  timestamp?: number,
): { rawBody: string; headers: Record<string, string> } {
  const rawBody = JSON.stringify({
    id: event.id,
    type: event.type,
    created: Math.floor(Date.now() / 1000),
    account: event.account,
    livemode: false,
    data: { object: event.object },
  });
  const t = timestamp ?? Math.floor(Date.now() / 1000);
  const signature = sign(secret, t, rawBody);
  return {
    rawBody,
    headers: {
      'content-type': 'application/json',
      'processor-signature': `t=${t},v1=${signature}`,
    },
  };
}

export async function sendProcessorEvent(
  merchant: TestMerchant,
  type: string,
  object: Record<string, unknown>,
  opts: { id?: string; secret?: string; timestamp?: number; baseUrl?: string } = {},
): Promise<ApiResponse & { eventId: string }> {
  const eventId = opts.id ?? `evt_${randomUUID()}`;
  const signed = signedProcessorEvent(
    opts.secret ?? merchant.processor_signing_secret,
    { id: eventId, type, object, account: 'acct_test' },
    opts.timestamp,
  );
  const res = await request('POST', `/hooks/processor/${merchant.public_key}`, {
    ...signed,
    baseUrl: opts.baseUrl,
  });
  return { ...res, eventId };
}

/** Polls `check` until it returns a value (not undefined) or the time is up. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`condition not met in ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
