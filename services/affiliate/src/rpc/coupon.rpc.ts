import { pageRequest } from '@aff/api';
import {
  callContext,
  currentEventContext,
  idParam,
  internalCallContext,
  ok,
  type RpcHandlers,
} from '@aff/messaging';
import type { CouponUseCases } from '../domain/coupons';
import type { MagicLinks } from '../domain/magic-links';

export function couponRpc(
  coupons: CouponUseCases,
): Pick<
  RpcHandlers<'affiliate'>,
  'listCoupons' | 'createCoupon' | 'getCoupon' | 'resolveCouponCode'
> {
  return {
    listCoupons: async (req, rpc) =>
      ok(
        await coupons.list(
          callContext(req, rpc),
          { affiliate_id: req.query.affiliate_id },
          pageRequest(req.query),
        ),
      ),
    createCoupon: async (req, rpc) => ok(await coupons.create(callContext(req, rpc), req.body)),
    getCoupon: async (req, rpc) => ok(await coupons.get(callContext(req, rpc), idParam(req))),
    /** Internal (tracking's coupon look-up): the typed input, no request envelope. */
    resolveCouponCode: async ({ merchant_id, code }, rpc) =>
      coupons.resolveCode(
        internalCallContext(merchant_id, currentEventContext(rpc.requestId)),
        code,
      ),
  };
}

export function magicLinkRpc(
  links: MagicLinks,
): Pick<RpcHandlers<'affiliate'>, 'issueMagicLink' | 'redeemMagicLink'> {
  return {
    issueMagicLink: async (req) => ok(await links.issue(req.merchant_id, idParam(req))),
    /** Internal, for the gateway's public `/portal/sso`; the token alone identifies the merchant. */
    redeemMagicLink: async ({ token }) => {
      const affiliate = await links.redeem(token);
      return {
        // The gateway opens a portal session for this merchant's affiliate.
        merchant_id: affiliate.merchant_id,
        affiliate: {
          id: affiliate._id,
          first_name: affiliate.first_name,
          last_name: affiliate.last_name,
          email: affiliate.email,
        },
      };
    },
  };
}
