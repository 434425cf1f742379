/**
 * The typed client (`@aff/client`, as a merchant's code would use it) bound to the gateway of
 * the test system. Its `fetch` checks every answer against the OpenAPI document, as the raw
 * helper in ./http does, so calls made through the client keep the conformance check.
 */
import { ApiError, createClient, type Client } from '@aff/client';
import { nonConformance } from './conformance';
import { gatewayUrl } from './http';

/** `fetch` that fails the call when the answer does not match the OpenAPI document. */
export const conformingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const text = await response.clone().text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: the check reports the content type
  }
  const url = input instanceof Request ? input.url : String(input);
  const mismatch = nonConformance(
    init?.method ?? 'GET',
    url,
    response.status,
    response.headers.get('content-type'),
    parsed,
  );
  if (mismatch) throw new Error(`Response does not conform to the API contract: ${mismatch}`);
  return response;
};

/** A client for one merchant of the test system. */
export function merchantClient(apiSecret: string, baseUrl?: string): Client {
  return createClient({ baseUrl: baseUrl ?? gatewayUrl(), apiSecret, fetch: conformingFetch });
}

/** The `ApiError` a call was rejected with; fails the test when it succeeded or failed otherwise. */
export async function rejection<E extends ApiError = ApiError>(call: Promise<unknown>): Promise<E> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiError) return error as E;
    throw error;
  }
  throw new Error('expected the call to be answered with an error status, it succeeded');
}
