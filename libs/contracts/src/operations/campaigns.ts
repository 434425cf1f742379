/** Campaigns: the commission rules affiliates earn under. */
import { z } from 'zod';
import { createCampaignBodySchema, updateCampaignBodySchema } from '../schemas/campaign';
import { campaignViewSchema, paginatedSchema } from '../views';
import { idParams, pageQuery } from './common';
import { defineOperation } from './operation';

const tag = 'Campaigns';

export const listCampaigns = defineOperation({
  name: 'listCampaigns',
  owner: 'affiliate',
  auth: 'apiSecret',
  tag,
  summary: 'List campaigns',
  http: { method: 'get', path: '/v1/campaigns' },
  query: z.object({ ...pageQuery }),
  response: {
    status: 200,
    description: 'A page of campaigns',
    body: paginatedSchema(campaignViewSchema),
  },
  errors: [400],
});

export const createCampaign = defineOperation({
  name: 'createCampaign',
  owner: 'affiliate',
  auth: 'apiSecret',
  tag,
  summary: 'Create a campaign',
  http: { method: 'post', path: '/v1/campaigns' },
  invalid: 'Could not create campaign.',
  body: createCampaignBodySchema,
  response: { status: 200, description: 'The new campaign', body: campaignViewSchema },
  errors: [400, 422],
});

export const getCampaign = defineOperation({
  name: 'getCampaign',
  owner: 'affiliate',
  auth: 'apiSecret',
  tag,
  summary: 'Retrieve a campaign',
  http: { method: 'get', path: '/v1/campaigns/:id' },
  params: idParams,
  response: { status: 200, description: 'The campaign', body: campaignViewSchema },
  errors: [404],
});

export const updateCampaign = defineOperation({
  name: 'updateCampaign',
  owner: 'affiliate',
  auth: 'apiSecret',
  tag,
  summary: 'Update a campaign',
  http: { method: 'put', path: '/v1/campaigns/:id', aliases: ['patch'] },
  params: idParams,
  invalid: 'Could not update campaign.',
  body: updateCampaignBodySchema,
  response: { status: 200, description: 'The updated campaign', body: campaignViewSchema },
  errors: [400, 404, 422],
});
