/**
 * How each merchant operation reads on the client: `[namespace, method]`, plus, for a list,
 * the name of the iterator over all its pages. This table is the only per-operation code: the
 * methods themselves are generated from the contract map. The `satisfies` clause makes a new
 * operation in the map a compile error here until it is given a name (and a list an iterator).
 */
import type { MerchantOperationName, PaginatedOperationName } from './operations';

type NameOf<K extends MerchantOperationName> = K extends PaginatedOperationName
  ? readonly [namespace: string, method: string, iterator: string]
  : readonly [namespace: string, method: string];

export const METHOD_NAMES = {
  listAffiliates: ['affiliates', 'list', 'listAll'],
  createAffiliate: ['affiliates', 'create'],
  getAffiliate: ['affiliates', 'get'],
  updateAffiliate: ['affiliates', 'update'],
  issueMagicLink: ['affiliates', 'magicLink'],
  listCampaigns: ['campaigns', 'list', 'listAll'],
  createCampaign: ['campaigns', 'create'],
  getCampaign: ['campaigns', 'get'],
  updateCampaign: ['campaigns', 'update'],
  listLinks: ['links', 'list', 'listAll'],
  createLink: ['links', 'create'],
  getLink: ['links', 'get'],
  updateLink: ['links', 'update'],
  listCoupons: ['coupons', 'list', 'listAll'],
  createCoupon: ['coupons', 'create'],
  getCoupon: ['coupons', 'get'],
  listReferrals: ['referrals', 'list', 'listAll'],
  getReferral: ['referrals', 'get'],
  reviewReferral: ['referrals', 'review'],
  listCommissions: ['commissions', 'list', 'listAll'],
  getCommission: ['commissions', 'get'],
  updateCommission: ['commissions', 'update'],
  deleteCommission: ['commissions', 'delete'],
  listPayouts: ['payouts', 'list', 'listAll'],
  generatePayouts: ['payouts', 'generate'],
  getPayout: ['payouts', 'get'],
  payPayout: ['payouts', 'pay'],
  listPayoutExports: ['payoutExports', 'list', 'listAll'],
  createPayoutExport: ['payoutExports', 'create'],
  getPayoutExport: ['payoutExports', 'get'],
  getPayoutExportFile: ['payoutExports', 'file'],
  completePayoutExport: ['payoutExports', 'complete'],
  cancelPayoutExport: ['payoutExports', 'cancel'],
  listWebhookEndpoints: ['webhookEndpoints', 'list', 'listAll'],
  createWebhookEndpoint: ['webhookEndpoints', 'create'],
  getWebhookEndpoint: ['webhookEndpoints', 'get'],
  updateWebhookEndpoint: ['webhookEndpoints', 'update'],
  deleteWebhookEndpoint: ['webhookEndpoints', 'delete'],
  rotateWebhookEndpointSecret: ['webhookEndpoints', 'rotateSecret'],
  listWebhookDeliveries: ['webhookEndpoints', 'listDeliveries', 'listAllDeliveries'],
  redeliverWebhookDelivery: ['webhookDeliveries', 'redeliver'],
} as const satisfies { [K in MerchantOperationName]: NameOf<K> };

export type MethodNames = typeof METHOD_NAMES;
export type Namespace = MethodNames[MerchantOperationName][0];
