/** Affiliate links (`?via=<token>`). */
import { z } from 'zod';
import { createLinkBodySchema, updateLinkBodySchema } from '../schemas/affiliate';
import { linkViewSchema, paginatedSchema } from '../views';
import { filter, idParams, pageQuery } from './common';
import { defineOperation } from './operation';

const tag = 'Affiliate links';

export const listLinks = defineOperation({
  name: 'listLinks',
  owner: 'affiliate',
  auth: 'apiSecret',
  tag,
  summary: 'List affiliate links',
  http: { method: 'get', path: '/v1/affiliate_links' },
  query: z.object({
    token: filter('Only the link with this token'),
    affiliate_id: filter('Only links of this affiliate'),
    ...pageQuery,
  }),
  response: { status: 200, description: 'A page of links', body: paginatedSchema(linkViewSchema) },
  errors: [400],
});

export const createLink = defineOperation({
  name: 'createLink',
  owner: 'affiliate',
  auth: 'apiSecret',
  tag,
  summary: 'Create a link for an affiliate',
  http: { method: 'post', path: '/v1/affiliate_links' },
  invalid: 'Could not create affiliate link.',
  body: createLinkBodySchema,
  response: { status: 200, description: 'The new link', body: linkViewSchema },
  errors: [400, 422],
});

export const getLink = defineOperation({
  name: 'getLink',
  owner: 'affiliate',
  auth: 'apiSecret',
  tag,
  summary: 'Retrieve a link',
  http: { method: 'get', path: '/v1/affiliate_links/:id' },
  params: idParams,
  response: { status: 200, description: 'The link', body: linkViewSchema },
  errors: [404],
});

export const updateLink = defineOperation({
  name: 'updateLink',
  owner: 'affiliate',
  auth: 'apiSecret',
  tag,
  summary: "Change a link's token or landing page",
  description: 'Absent fields stay as they are. The old token stops attributing visits at once.',
  http: { method: 'put', path: '/v1/affiliate_links/:id', aliases: ['patch'] },
  params: idParams,
  invalid: 'Could not update affiliate link.',
  body: updateLinkBodySchema,
  response: { status: 200, description: 'The updated link', body: linkViewSchema },
  errors: [400, 404, 422],
});
