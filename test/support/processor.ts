/** Plays the payment processor: signs events with the merchant's signing secret and posts them. */
import { createHmac, randomUUID } from 'node:crypto';
import { request, type ApiResponse } from './http';
import type { TestMerchant } from './merchant';

export function sign(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

export async function sendProcessorEvent(
  merchant: TestMerchant,
  type: string,
  object: Record<string, unknown>,
  opts: { id?: string; secret?: string; timestamp?: number; baseUrl?: string } = {},
): Promise<ApiResponse & { eventId: string }> {
  const eventId = opts.id ?? `evt_${randomUUID()}`;
  const body = JSON.stringify({
    id: eventId,
    type,
    created: Math.floor(Date.now() / 1000),
    account: 'acct_test',
    livemode: false,
    data: { object },
  });
  const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
  const signature = sign(opts.secret ?? merchant.processor_signing_secret, timestamp, body);
  const res = await request('POST', `/hooks/processor/${merchant.public_key}`, {
    rawBody: body,
    headers: {
      'content-type': 'application/json',
      'processor-signature': `t=${timestamp},v1=${signature}`,
    },
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
