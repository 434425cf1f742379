/** Reads the delivery log through the gateway until it shows what a test waits for. */

type Get = (path: string) => Promise<{ status: number; body: any }>;

/** The first page of an endpoint's log (newest first), once `until` holds for it. */
export async function waitForLog(
  get: Get,
  endpointId: string,
  until: (deliveries: any[]) => boolean,
  timeoutMs = 15_000,
): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const log = await get(`/v1/webhook_endpoints/${endpointId}/deliveries?limit=100`);
    const deliveries: any[] = log.body?.data ?? [];
    if (until(deliveries)) return deliveries;
    if (Date.now() > deadline) {
      throw new Error(
        `the delivery log did not match within ${timeoutMs} ms: ${JSON.stringify(log.body)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The first delivery for which `until` holds. */
export async function waitForDelivery(
  get: Get,
  endpointId: string,
  until: (delivery: any) => boolean,
  timeoutMs = 15_000,
): Promise<any> {
  const deliveries = await waitForLog(get, endpointId, (all) => all.some(until), timeoutMs);
  return deliveries.find(until);
}
