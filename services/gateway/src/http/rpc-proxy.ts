/** Forwards an authenticated REST call to its service over NATS and writes the reply. */
import type { Request, Response } from 'express';
import { fileReplySchema } from '@aff/contracts';
import { parseExpand } from '@aff/api';
import type { RpcClient } from '@aff/messaging';
import type { Route } from './routes';
import { merchantOf } from './auth';

export function proxyTo(route: Route, rpc: RpcClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const merchant = merchantOf(res);
    const query = req.query as Record<string, unknown>;
    const reply = await rpc.call(
      route.service,
      route.operation,
      {
        merchant_id: merchant.id,
        params: req.params as Record<string, string>,
        query,
        body: req.body ?? {},
        expand: parseExpand(query.expand ?? query['expand[]']),
        api_key_id: merchant.apiKeyId,
        idempotency_seed: res.locals.idempotencySeed as string | undefined,
      },
      res.locals.requestId as string,
    );
    if (route.file && reply.status < 300) {
      // A service that breaks its own contract is a bug: the error handler answers 500.
      const file = fileReplySchema.parse(reply.body);
      res
        .status(reply.status)
        .type(route.file.contentType)
        .attachment(file.filename)
        .send(file.content);
      return;
    }
    res.status(reply.status).json(reply.body);
  };
}
