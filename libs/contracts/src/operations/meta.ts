/** Operations the gateway answers about the API itself. */
import { z } from 'zod';
import { defineOperation } from './operation';

export const getOpenApiDocument = defineOperation({
  name: 'getOpenApiDocument',
  owner: 'gateway',
  auth: 'none',
  tag: 'Reference',
  summary: 'This OpenAPI 3.1 document (a readable rendering is at `/docs`)',
  http: { method: 'get', path: '/v1/openapi.json' },
  response: {
    status: 200,
    description: 'The OpenAPI document',
    body: z.object({ openapi: z.string() }).loose(),
  },
  errors: [],
});
