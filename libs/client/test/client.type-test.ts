/**
 * Type-level test, checked by `npm run build` (`tsc -p tsconfig.json` covers every test folder)
 * and never run by jest: the client's inputs are typed from the contract map. Each
 * `@ts-expect-error` fails the build if the line below it ever compiles.
 */
import type { createClient } from '../src';

export function typeOnly(client: ReturnType<typeof createClient>): void {
  // @ts-expect-error email is required
  void client.affiliates.create({ first_name: 'A', last_name: 'B' });
  // @ts-expect-error state is one of the affiliate states
  void client.affiliates.update({ id: 'x', state: 'sleeping' });
  // @ts-expect-error get needs the id
  void client.affiliates.get();
  // @ts-expect-error no such namespace method
  void client.coupons.update({ id: 'x' });
  // @ts-expect-error reads take no idempotency key
  void client.affiliates.list({}, { idempotencyKey: 'k' });
  // @ts-expect-error expand[] takes the names the operation lists
  void client.commissions.list({ 'expand[]': ['secrets'] });
  // Written right, each compiles.
  void client.affiliates.create({ first_name: 'A', last_name: 'B', email: 'e' });
  void client.commissions.list({ 'expand[]': ['campaign', 'sale'] });
}
