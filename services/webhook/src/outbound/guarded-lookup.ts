/**
 * A DNS lookup for outgoing sockets that refuses private addresses. It runs when the socket
 * connects, so the address checked is the address used: a name that resolved to a public
 * address at registration and to 127.0.0.1 now (DNS rebinding) is refused now.
 */
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isPrivateAddress } from '../domain/address-policy';

export class RefusedTargetError extends Error {
  readonly code = 'ERR_WEBHOOK_PRIVATE_TARGET';
  constructor(host: string, address: string) {
    super(`Refused: ${host} resolves to a private, loopback or link-local address (${address})`);
    this.name = 'RefusedTargetError';
  }
}

type Resolve = (
  hostname: string,
  callback: (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

const resolveAll: Resolve = (hostname, callback) => dns.lookup(hostname, { all: true }, callback);

/** Every address a name resolves to must be public; one private answer refuses the name. */
export function guardedLookup(resolve: Resolve = resolveAll): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const family = familyNumber(options.family);
      const wanted = addresses.filter((a) => !family || a.family === family);
      const blocked = addresses.find((a) => isPrivateAddress(a.address));
      if (blocked) return callback(new RefusedTargetError(hostname, blocked.address), '', 0);
      if (wanted.length === 0) {
        const notFound: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
        notFound.code = 'ENOTFOUND';
        return callback(notFound, '', 0);
      }
      if (options.all) return callback(null, wanted);
      callback(null, wanted[0]!.address, wanted[0]!.family);
    });
  };
}

function familyNumber(family: dns.LookupOptions['family']): number {
  if (family === 'IPv4') return 4;
  if (family === 'IPv6') return 6;
  return family ?? 0;
}
