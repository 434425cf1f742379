/**
 * The OpenAPI 3.1 document, generated from the contract map. Written at build time by
 * `write-openapi.ts`; the gateway serves it at `/v1/openapi.json`.
 */
import type { z } from 'zod';
import { operationList, type Operation } from '../operations';
import { responseSchemas } from './components';
import { toJsonSchema, type JsonSchema } from './json-schema';
import { errorResponse, errorStatuses, rateLimitHeaders } from './responses';

export const API_VERSION = 'v1';

/** `/v1/affiliates/:id` → `/v1/affiliates/{id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

const SECURITY: Record<Operation['auth'], JsonSchema[] | undefined> = {
  apiSecret: [{ apiSecret: [] }],
  publicKey: [],
  signedHook: [{ processorSignature: [] }],
  none: [],
  internal: undefined,
};

function parameters(operation: Operation): JsonSchema[] {
  const list: JsonSchema[] = [];
  const add = (where: 'path' | 'query' | 'header', shape: z.ZodObject | undefined) => {
    if (!shape) return;
    const json = toJsonSchema(shape, 'input');
    const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((json.required ?? []) as string[]);
    for (const [name, schema] of Object.entries(properties)) {
      const { description, ...rest } = schema;
      list.push({
        name,
        in: where,
        required: where === 'path' || required.has(name),
        ...(description ? { description } : {}),
        schema: rest,
        ...(rest.type === 'array' ? { style: 'form', explode: true } : {}),
      });
    }
  };
  add('path', operation.params);
  add('query', operation.query);
  add('header', operation.headers);
  return list;
}

function requestBody(operation: Operation): JsonSchema | undefined {
  if (!operation.body) return undefined;
  const schema = toJsonSchema(operation.body, 'input');
  // The processor signs the raw JSON it sends; everything else also takes HTML forms.
  const types =
    operation.auth === 'signedHook'
      ? ['application/json']
      : ['application/x-www-form-urlencoded', 'application/json'];
  const required = Array.isArray(schema.required) && schema.required.length > 0;
  return {
    required: required || operation.auth === 'signedHook',
    content: Object.fromEntries(types.map((type) => [type, { schema }])),
  };
}

function successResponse(operation: Operation, bodies: Record<string, JsonSchema>): JsonSchema {
  const { response } = operation;
  const type = response.contentType ?? 'application/json';
  const schema = bodies[operation.name] ?? { type: 'string' };
  return {
    description: response.description,
    ...(operation.auth === 'apiSecret' ? { headers: rateLimitHeaders() } : {}),
    content: { [type]: { schema } },
  };
}

/**
 * OpenAPI links from a create operation (`POST <collection>`) to the operations on the record
 * it answers (`<collection>/:id...`), so a client generator or a stateful fuzzer knows where
 * an `id` comes from.
 */
function links(operation: Operation, all: Operation[]): JsonSchema | undefined {
  const http = operation.http;
  if (!http || operation.auth !== 'apiSecret' || http.method !== 'post') return undefined;
  if (http.path.includes(':')) return undefined;
  const found: JsonSchema = {};
  for (const target of all) {
    const route = target.http;
    if (!route || !route.path.startsWith(`${http.path}/:id`)) continue;
    for (const method of [route.method, ...(route.aliases ?? [])]) {
      const operationId = method === route.method ? target.name : `${target.name}_${method}`;
      found[operationId] = { operationId, parameters: { id: '$response.body#/id' } };
    }
  }
  return Object.keys(found).length ? found : undefined;
}

function operationObject(
  operation: Operation,
  operationId: string,
  bodies: Record<string, JsonSchema>,
  all: Operation[],
): JsonSchema {
  const success = successResponse(operation, bodies);
  const linked = links(operation, all);
  const responses: JsonSchema = {
    [String(operation.response.status)]: linked ? { ...success, links: linked } : success,
  };
  for (const status of errorStatuses(operation)) responses[String(status)] = errorResponse(status);
  const body = requestBody(operation);
  const params = parameters(operation);
  return {
    operationId,
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    ...(operation.tag ? { tags: [operation.tag] } : {}),
    security: SECURITY[operation.auth],
    ...(params.length ? { parameters: params } : {}),
    ...(body ? { requestBody: body } : {}),
    responses,
  };
}

/** The gateway honours `Idempotency-Key` on every POST, PUT and PATCH of the API (docs/idempotency.md). */
function takesIdempotencyKey(operation: Operation, method: string): boolean {
  return operation.auth === 'apiSecret' && ['post', 'put', 'patch'].includes(method);
}

function withIdempotencyKey(object: JsonSchema): JsonSchema {
  const parameters = [...((object.parameters as JsonSchema[] | undefined) ?? [])];
  parameters.push({
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes a retry safe: the same key with the same request replays the first answer (with `Idempotent-Replayed: true`); with another request it is a 422. Kept 24 h per merchant; at most 255 characters (else 400). A second request while the first is in flight waits for its answer, or gets 409 after a while.',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
  });
  const responses = { ...(object.responses as Record<string, JsonSchema>) };
  for (const status of [400, 409, 422]) responses[String(status)] ??= errorResponse(status);
  return { ...object, parameters, responses };
}

export function buildOpenApiDocument(): JsonSchema {
  const served = operationList().filter((operation) => operation.http);
  const withBody: Record<string, z.ZodType> = {};
  for (const operation of served) {
    if (operation.response.body) withBody[operation.name] = operation.response.body;
  }
  const { components, byKey: bodies } = responseSchemas(withBody);
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const operation of served) {
    const http = operation.http!;
    const item = (paths[openApiPath(http.path)] ??= {});
    const methods = [http.method, ...(http.aliases ?? [])];
    for (const method of methods) {
      const id = method === http.method ? operation.name : `${operation.name}_${method}`;
      const object = operationObject(operation, id, bodies, served);
      item[method] = takesIdempotencyKey(operation, method) ? withIdempotencyKey(object) : object;
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Affiliate platform API',
      version: API_VERSION,
      description:
        "Affiliates, links, referrals, commissions and payouts of a merchant's affiliate program. " +
        'Authenticate with HTTP Basic: the API secret is the username, the password is empty. ' +
        'Request bodies may be form-encoded or JSON. List endpoints answer the pagination ' +
        'envelope `{pagination, data}` (`page`, `limit`: default 25, maximum 100). Related ' +
        'objects are expanded with `expand=<name>` or `expand[]=<name>` repeated. Errors are ' +
        '`{error}`, with `details` (one message each) on 422.',
    },
    servers: [{ url: '/' }],
    security: [{ apiSecret: [] }],
    paths,
    components: {
      securitySchemes: {
        apiSecret: {
          type: 'http',
          scheme: 'basic',
          description: "The merchant's API secret (`sk_...`) as the username; empty password.",
        },
        processorSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'Processor-Signature',
          description:
            '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` with the processor signing secret.',
        },
      },
      schemas: components,
    },
  };
}
