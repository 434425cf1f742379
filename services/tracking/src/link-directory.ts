/** Asks the affiliate service over NATS for a link token it owns (see domain/catalog.ts). */
import type { AffiliateView, LinkView } from '@aff/contracts';
import type { RpcClient } from '@aff/messaging';
import type { LinkDirectory } from './domain/ports';

export class RpcLinkDirectory implements LinkDirectory {
  constructor(private readonly rpc: RpcClient) {}

  async resolveToken(merchantId: string, token: string) {
    const reply = await this.rpc.call(
      'affiliate',
      'resolveLinkToken',
      {
        merchant_id: merchantId,
        params: {},
        query: { token },
        body: {},
        expand: [],
        api_key_id: null,
      },
      'tracking',
    );
    if (reply.status === 404) return null;
    if (reply.status !== 200) throw new Error(`affiliate service answered ${reply.status}`);
    return reply.body as { link: LinkView; affiliate: AffiliateView };
  }
}
