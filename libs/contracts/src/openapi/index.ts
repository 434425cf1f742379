export { buildOpenApiDocument, openApiPath, API_VERSION } from './document';
export { toJsonSchema, type JsonSchema } from './json-schema';
