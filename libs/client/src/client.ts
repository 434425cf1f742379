/**
 * The client: `call(operationName, input)` for any merchant operation of the contract map, an
 * iterator over every page of a list, and the namespaced methods (`client.affiliates.create`)
 * generated from `METHOD_NAMES`.
 */
import { OPERATIONS, type Operation, type Pagination } from '@aff/contracts';
import { ApiConnectionError, ApiTimeoutError, errorBodyOf, errorFor } from './errors';
import { METHOD_NAMES, type MethodNames, type Namespace } from './names';
import type {
  HasRequiredInput,
  ItemOf,
  MerchantOperationName,
  OperationInput,
  OperationOutput,
  PaginatedOperationName,
  WriteOperationName,
} from './operations';
import { buildRequest } from './request';

export interface ClientOptions {
  /** Where the API is served, e.g. `https://affiliates.example.com` (no `/v1`). */
  baseUrl: string;
  /** The merchant's API secret: sent as the HTTP Basic user name, with an empty password. */
  apiSecret: string;
  /** Another `fetch` (a test's recorder, a proxy agent); defaults to the global one. */
  fetch?: typeof fetch;
  /** Milliseconds to wait for an answer before giving up (default 30 000). */
  timeoutMs?: number;
  /** Headers sent with every request (e.g. a `User-Agent`). */
  headers?: Record<string, string>;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
  headers?: Record<string, string>;
}

export interface WriteRequestOptions extends RequestOptions {
  /**
   * Sent as `Idempotency-Key`: a retry with the same key (within 24 h) is answered with the
   * first answer instead of running again (docs/idempotency.md).
   */
  idempotencyKey?: string;
}

export type OptionsFor<K extends MerchantOperationName> = K extends WriteOperationName
  ? WriteRequestOptions
  : RequestOptions;

/** Arguments of an operation: the input may be left out when nothing in it is required. */
export type CallArgs<K extends MerchantOperationName> =
  HasRequiredInput<K> extends true
    ? [input: OperationInput<K>, options?: OptionsFor<K>]
    : [input?: OperationInput<K>, options?: OptionsFor<K>];

export type IteratorArgs<K extends PaginatedOperationName> =
  HasRequiredInput<K> extends true
    ? [input: OperationInput<K>, options?: RequestOptions]
    : [input?: OperationInput<K>, options?: RequestOptions];

export interface ApiResult<T> {
  data: T;
  status: number;
  headers: Headers;
}

type OperationsIn<N extends Namespace> = {
  [K in MerchantOperationName]: MethodNames[K][0] extends N ? K : never;
}[MerchantOperationName];

type IteratorName<K extends MerchantOperationName> = MethodNames[K] extends readonly [
  string,
  string,
  infer I extends string,
]
  ? I
  : never;

type NamespaceApi<N extends Namespace> = {
  [K in OperationsIn<N> as MethodNames[K][1]]: (
    ...args: CallArgs<K>
  ) => Promise<OperationOutput<K>>;
} & {
  [K in OperationsIn<N> & PaginatedOperationName as IteratorName<K>]: (
    ...args: IteratorArgs<K>
  ) => AsyncGenerator<ItemOf<K>, void, undefined>;
};

/** `client.affiliates.create(...)`, `client.commissions.listAll(...)`, ... */
export type NamespacedMethods = {
  readonly [N in Namespace]: NamespaceApi<N>;
};

const DEFAULT_TIMEOUT_MS = 30_000;
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH']);

export class ApiClient {
  readonly #baseUrl: string;
  readonly #authorization: string;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;
  readonly #headers: Record<string, string>;

  constructor(options: ClientOptions) {
    if (!options.baseUrl) throw new TypeError('baseUrl is required');
    if (!options.apiSecret) throw new TypeError('apiSecret is required');
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#authorization = `Basic ${Buffer.from(`${options.apiSecret}:`).toString('base64')}`;
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#headers = { ...options.headers };
  }

  /** Runs one operation and answers its success body; an error answer throws an `ApiError`. */
  async call<K extends MerchantOperationName>(
    name: K,
    ...args: CallArgs<K>
  ): Promise<OperationOutput<K>> {
    return (await this.request(name, ...args)).data;
  }

  /** As `call`, with the status and headers (`Idempotent-Replayed`, `X-Request-Id`, ...). */
  async request<K extends MerchantOperationName>(
    name: K,
    ...args: CallArgs<K>
  ): Promise<ApiResult<OperationOutput<K>>> {
    const [input, options = {}] = args as [Record<string, unknown>?, WriteRequestOptions?];
    const operation = merchantOperation(name);
    const built = buildRequest(operation, input);
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...this.#headers,
      ...options.headers,
      authorization: this.#authorization,
    };
    if (built.body !== undefined) headers['content-type'] = 'application/json';
    if (options.idempotencyKey !== undefined && WRITE_METHODS.has(built.method)) {
      headers['idempotency-key'] = options.idempotencyKey;
    }
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const pathOnly = built.path.split('?')[0] ?? built.path;

    let response: Response;
    let text: string;
    try {
      response = await this.#fetch(`${this.#baseUrl}${built.path}`, {
        method: built.method,
        headers,
        body: built.body,
        signal,
      });
      text = await response.text();
    } catch (error) {
      if (timeout.aborted) {
        throw new ApiTimeoutError(
          `${built.method} ${pathOnly} got no answer within ${timeoutMs} ms`,
          built.method,
          pathOnly,
          { cause: error },
        );
      }
      const reason = error instanceof Error ? error.message : String(error);
      throw new ApiConnectionError(
        `${built.method} ${pathOnly} failed: ${reason}`,
        built.method,
        pathOnly,
        { cause: error },
      );
    }

    const parsed = parseJson(text, response.headers.get('content-type'));
    if (!response.ok) {
      throw errorFor({
        status: response.status,
        body: errorBodyOf(parsed, text, response.status),
        headers: response.headers,
        method: built.method,
        path: pathOnly,
      });
    }
    return {
      data: (parsed === undefined ? text : parsed) as OperationOutput<K>,
      status: response.status,
      headers: response.headers,
    };
  }

  /**
   * Every item of a list, page after page (the spec's `page` and `pagination.next_page`).
   * `page` in the input is the first page to fetch; `limit` is the page size (at most 100).
   */
  async *paginate<K extends PaginatedOperationName>(
    name: K,
    ...args: IteratorArgs<K>
  ): AsyncGenerator<ItemOf<K>, void, undefined> {
    for await (const page of this.pages(name, ...args)) {
      yield* (page as { data: ItemOf<K>[] }).data;
    }
  }

  /** Every page of a list, as answered (envelope included). */
  async *pages<K extends PaginatedOperationName>(
    name: K,
    ...args: IteratorArgs<K>
  ): AsyncGenerator<OperationOutput<K>, void, undefined> {
    const [input = {}, options] = args as [Record<string, unknown>?, RequestOptions?];
    let page: unknown = input.page ?? 1;
    for (;;) {
      const answer = (await this.call(
        name,
        ...([{ ...input, page }, options] as unknown as CallArgs<K>),
      )) as OperationOutput<K>;
      yield answer;
      const { next_page: next, current_page: current } = (answer as { pagination: Pagination })
        .pagination;
      // A next page that does not move forward would loop forever; stop instead.
      if (next === null || next <= current) return;
      page = next;
    }
  }
}

/** The client with its namespaced methods. */
export type Client = ApiClient & NamespacedMethods;

/** `createClient({ baseUrl, apiSecret })`: see libs/client/README.md. */
export function createClient(options: ClientOptions): Client {
  const client = new ApiClient(options);
  const namespaces: Record<string, Record<string, unknown>> = {};
  for (const [name, [namespace, method, iterator]] of Object.entries(METHOD_NAMES) as [
    MerchantOperationName,
    readonly [string, string, string?],
  ][]) {
    const methods = (namespaces[namespace] ??= {});
    methods[method] = (...args: unknown[]) => client.call(name, ...(args as CallArgs<typeof name>));
    if (iterator) {
      methods[iterator] = (...args: unknown[]) =>
        client.paginate(
          name as PaginatedOperationName,
          ...(args as IteratorArgs<PaginatedOperationName>),
        );
    }
  }
  return Object.assign(client, namespaces) as unknown as Client;
}

function merchantOperation(name: string): Operation {
  const operation = (OPERATIONS as Record<string, Operation>)[name];
  if (!operation || operation.auth !== 'apiSecret' || !operation.http) {
    throw new TypeError(`${name} is not an operation of the merchant API`);
  }
  return operation;
}

function parseJson(text: string, contentType: string | null): unknown {
  if (!text || !contentType?.includes('json')) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
