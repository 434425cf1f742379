/**
 * The typed client of internal operations (docs/contract.md, "Internal operations"): the input
 * goes to `rpc.<owner>.<name>` as is, without the HTTP envelope of the gateway's calls, and the
 * reply body comes back validated by the operation's response schema. Any other status comes
 * back as the AppError the callee threw (404, 401, 422 ...), a missing or slow service as the
 * RpcClient's 503/504.
 */
import { AppError, appErrorFromReply } from '@aff/api';
import type { InternalInput, InternalOperation, InternalReplyBody } from '@aff/contracts';
import type { RpcClient } from './rpc-client';

export async function callInternal<O extends InternalOperation>(
  rpc: RpcClient,
  operation: O,
  input: InternalInput<O>,
  requestId: string,
): Promise<InternalReplyBody<O>> {
  const merchantId = (input as { merchant_id?: unknown }).merchant_id;
  const reply = await rpc.send(
    operation.owner,
    operation.name,
    input,
    requestId,
    typeof merchantId === 'string' ? merchantId : undefined,
  );
  if (reply.status !== operation.response.status) {
    throw appErrorFromReply(reply.status, reply.body);
  }
  const parsed = operation.response.body.safeParse(reply.body);
  if (!parsed.success) {
    // The callee broke its own contract: a bug to see in the logs, not a reason to trust the body.
    throw new AppError('internal', `Malformed reply of ${operation.name}`, [
      ...new Set(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)),
    ]);
  }
  return parsed.data as InternalReplyBody<O>;
}
