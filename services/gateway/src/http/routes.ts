/** Which service operation answers each REST route. The gateway holds no business logic. */
import type { ServiceName } from '@aff/contracts';

export interface Route {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  service: ServiceName;
  operation: string;
}

export const ROUTES: Route[] = [
  { method: 'get', path: '/v1/affiliates', service: 'affiliate', operation: 'listAffiliates' },
  { method: 'post', path: '/v1/affiliates', service: 'affiliate', operation: 'createAffiliate' },
  { method: 'get', path: '/v1/affiliates/:id', service: 'affiliate', operation: 'getAffiliate' },
  { method: 'put', path: '/v1/affiliates/:id', service: 'affiliate', operation: 'updateAffiliate' },
  {
    method: 'patch',
    path: '/v1/affiliates/:id',
    service: 'affiliate',
    operation: 'updateAffiliate',
  },
  {
    method: 'get',
    path: '/v1/affiliates/:id/sso',
    service: 'affiliate',
    operation: 'issueMagicLink',
  },
  { method: 'get', path: '/v1/affiliate_coupons', service: 'affiliate', operation: 'listCoupons' },
  {
    method: 'post',
    path: '/v1/affiliate_coupons',
    service: 'affiliate',
    operation: 'createCoupon',
  },
  {
    method: 'get',
    path: '/v1/affiliate_coupons/:id',
    service: 'affiliate',
    operation: 'getCoupon',
  },
  { method: 'get', path: '/v1/campaigns', service: 'affiliate', operation: 'listCampaigns' },
  { method: 'post', path: '/v1/campaigns', service: 'affiliate', operation: 'createCampaign' },
  { method: 'get', path: '/v1/campaigns/:id', service: 'affiliate', operation: 'getCampaign' },
  { method: 'put', path: '/v1/campaigns/:id', service: 'affiliate', operation: 'updateCampaign' },
  { method: 'patch', path: '/v1/campaigns/:id', service: 'affiliate', operation: 'updateCampaign' },
  { method: 'get', path: '/v1/affiliate_links', service: 'affiliate', operation: 'listLinks' },
  { method: 'post', path: '/v1/affiliate_links', service: 'affiliate', operation: 'createLink' },
  { method: 'get', path: '/v1/affiliate_links/:id', service: 'affiliate', operation: 'getLink' },
  { method: 'put', path: '/v1/affiliate_links/:id', service: 'affiliate', operation: 'updateLink' },
  {
    method: 'patch',
    path: '/v1/affiliate_links/:id',
    service: 'affiliate',
    operation: 'updateLink',
  },
  { method: 'get', path: '/v1/commissions', service: 'commission', operation: 'listCommissions' },
  { method: 'get', path: '/v1/commissions/:id', service: 'commission', operation: 'getCommission' },
  {
    method: 'put',
    path: '/v1/commissions/:id',
    service: 'commission',
    operation: 'updateCommission',
  },
  {
    method: 'patch',
    path: '/v1/commissions/:id',
    service: 'commission',
    operation: 'updateCommission',
  },
  {
    method: 'delete',
    path: '/v1/commissions/:id',
    service: 'commission',
    operation: 'deleteCommission',
  },
  { method: 'get', path: '/v1/referrals', service: 'tracking', operation: 'listReferrals' },
  { method: 'get', path: '/v1/referrals/:id', service: 'tracking', operation: 'getReferral' },
  {
    method: 'get',
    path: '/v1/webhook_endpoints',
    service: 'webhook',
    operation: 'listWebhookEndpoints',
  },
  {
    method: 'post',
    path: '/v1/webhook_endpoints',
    service: 'webhook',
    operation: 'createWebhookEndpoint',
  },
  {
    method: 'get',
    path: '/v1/webhook_endpoints/:id',
    service: 'webhook',
    operation: 'getWebhookEndpoint',
  },
  {
    method: 'put',
    path: '/v1/webhook_endpoints/:id',
    service: 'webhook',
    operation: 'updateWebhookEndpoint',
  },
  {
    method: 'patch',
    path: '/v1/webhook_endpoints/:id',
    service: 'webhook',
    operation: 'updateWebhookEndpoint',
  },
  {
    method: 'delete',
    path: '/v1/webhook_endpoints/:id',
    service: 'webhook',
    operation: 'deleteWebhookEndpoint',
  },
  {
    method: 'post',
    path: '/v1/webhook_endpoints/:id/rotate_secret',
    service: 'webhook',
    operation: 'rotateWebhookEndpointSecret',
  },
  {
    method: 'get',
    path: '/v1/webhook_endpoints/:id/deliveries',
    service: 'webhook',
    operation: 'listWebhookDeliveries',
  },
  {
    method: 'post',
    path: '/v1/webhook_deliveries/:id/redeliver',
    service: 'webhook',
    operation: 'redeliverWebhookDelivery',
  },
  { method: 'get', path: '/v1/payouts', service: 'payout', operation: 'listPayouts' },
  // Before `/v1/payouts/:id`, or `generate` would be taken for an id.
  { method: 'post', path: '/v1/payouts/generate', service: 'payout', operation: 'generatePayouts' },
  { method: 'get', path: '/v1/payouts/:id', service: 'payout', operation: 'getPayout' },
  { method: 'put', path: '/v1/payouts/:id/pay', service: 'payout', operation: 'payPayout' },
];
