import { BlockList, isIP } from 'node:net';

/**
 * Addresses an outgoing request (a webhook) must never reach unless the operator allows it
 * (decisions.md §7): they would let a merchant probe our own network.
 */
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv6');
}

export function isPrivateAddress(ip: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return PRIVATE.check(mapped[1]!, 'ipv4');
  const family = isIP(ip);
  return family === 4 ? PRIVATE.check(ip, 'ipv4') : family === 6 ? PRIVATE.check(ip, 'ipv6') : false;
}

/**
 * Why `url` may not be a webhook destination, or null when it may. Checks what the URL
 * itself says (IP literals, localhost names); the deliverer checks the resolved address
 * again at send time, since a public name can resolve to a private address.
 */
export function outboundUrlProblem(url: string, opts: { allowPrivate: boolean }): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must use http or https';
  if (parsed.username || parsed.password) return 'must not contain credentials';
  if (opts.allowPrivate) return null;
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || isPrivateAddress(host)) {
    return 'must not point to a private, loopback or link-local address';
  }
  return null;
}
