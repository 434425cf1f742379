/** Typed client of the merchant REST API, generated from the contract map (`@aff/contracts`). */
export * from './client';
export * from './errors';
export { METHOD_NAMES, type Namespace } from './names';
export type {
  ItemOf,
  MerchantOperationName,
  OperationInput,
  OperationOutput,
  PaginatedOperationName,
  WriteOperationName,
} from './operations';
