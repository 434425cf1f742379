/**
 * Which addresses a webhook may reach when private targets are not allowed: a merchant's URL
 * must not turn the platform into a proxy into its own network (SSRF). Pure functions.
 */
import { BlockList, isIP, isIPv4 } from 'node:net';

const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible block
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** True for loopback, link-local, private, reserved and otherwise non-routable addresses. */
export function isPrivateAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '');
  if (isIPv4(ip)) return NOT_PUBLIC.check(ip, 'ipv4');
  if (isIP(ip) !== 6) return true; // not an address at all: never treat it as public
  const embedded = embeddedIPv4(ip);
  if (embedded) return NOT_PUBLIC.check(embedded, 'ipv4');
  return NOT_PUBLIC.check(ip, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::a.b.c.d) address. */
function embeddedIPv4(ip: string): string | null {
  const groups = expandIPv6(ip);
  const prefix = groups
    .slice(0, 6)
    .map((g) => g.toString(16))
    .join(':');
  if (prefix !== '0:0:0:0:0:ffff' && prefix !== '64:ff9b:0:0:0:0') return null;
  const high = groups[6]!;
  const low = groups[7]!;
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

function expandIPv6(ip: string): number[] {
  let text = ip.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text =
      text.slice(0, dotted.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array<string>(missing).fill('0'), ...right].map((g) => parseInt(g, 16));
}

/** The host of a URL as a bare address when it is an IP literal (`[::1]` → `::1`), else null. */
export function literalAddress(hostname: string): string | null {
  const host = hostname.replace(/^\[|\]$/g, '');
  return isIP(host) ? host : null;
}

export const PRIVATE_TARGET_MESSAGE =
  'Url must not point to a private, loopback or link-local address';
