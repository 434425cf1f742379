/**
 * The REST routes the gateway proxies to services, derived from the contract map
 * (`@aff/contracts` operations): one route per method of each API-secret operation.
 */
import { proxiedOperations, type HttpMethod, type Operation } from '@aff/contracts';
import type { ServiceName } from '@aff/contracts';

export interface Route {
  method: HttpMethod;
  path: string;
  service: ServiceName;
  operation: string;
  /** A file download: the reply body is a `FileReply`, sent as this content type. */
  file?: { contentType: string };
}

export function apiRoutes(operations = proxiedOperations()): Route[] {
  const routes = operations.flatMap((operation) =>
    [operation.http.method, ...(operation.http.aliases ?? [])].map((method) => ({
      method,
      path: operation.http.path,
      service: operation.owner,
      operation: operation.name,
      ...(operation.response.file
        ? { file: { contentType: operation.response.contentType ?? 'application/octet-stream' } }
        : {}),
    })),
  );
  // Literal segments first, so `/v1/payouts/generate` is never taken for `/v1/payouts/:id`:
  // a parameter sorts after any literal at the same position.
  const key = (path: string) => path.replace(/:[A-Za-z0-9_]+/g, '\uffff');
  return routes.sort((a, b) =>
    key(a.path) < key(b.path) ? -1 : key(a.path) > key(b.path) ? 1 : 0,
  );
}

/** The Express path of an operation the gateway serves itself (public and reference routes). */
export function pathOf(operation: Operation): string {
  if (!operation.http) throw new Error(`${operation.name} has no HTTP route`);
  return operation.http.path;
}
