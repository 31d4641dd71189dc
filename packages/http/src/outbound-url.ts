import { BlockList, isIP } from 'node:net';

/**
 * Addresses an outgoing request (a webhook) must never reach unless the operator allows it
 *: they would let a merchant probe our own network.
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
  // NAT64 local-use prefix (RFC 8215): operator-defined, so its targets are our own network.
  ['64:ff9b:1::', 48],
  ['fc00::', 7],
  ['fe80::', 10],
  // Deprecated site-local: still routed inside some networks.
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv6');
}

/**
 * The eight 16-bit groups of an IPv6 address (any spelling: `::` compression, a trailing
 * dotted quad, a `%zone`), or null when it is not one.
 */
function ipv6Groups(ip: string): number[] | null {
  const bare = ip.replace(/%.*$/, '');
  if (isIP(bare) !== 6) return null;
  let text = bare.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -dotted[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const part = (s: string | undefined) => (s ? s.split(':').map((h) => parseInt(h, 16)) : []);
  const left = part(head);
  const right = part(tail);
  const groups = tail === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 ? groups : null;
}

const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;

/**
 * The IPv4 address an IPv6 address carries and that a packet to it may end up reaching:
 * IPv4-mapped `::ffff:a.b.c.d` (the kernel connects to the v4 address itself),
 * IPv4-translated `::ffff:0:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`
 * (a translator forwards to the v4 address), 6to4 `2002:AABB:CCDD::/48` (a relay does) and
 * Teredo `2001:0::/32` (server and, bit-inverted, client address). Several because Teredo has two.
 */
function embeddedIPv4(g: number[]): string[] {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [number, number, number, number, number, number, number, number];
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroTo(5) && g5 === 0xffff) return [v4(g6, g7)];
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return [v4(g6, g7)];
  if (zeroTo(6)) return [v4(g6, g7)];
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return [v4(g6, g7)];
  if (g0 === 0x2002) return [v4(g1, g2)];
  if (g0 === 0x2001 && g1 === 0) return [v4(g2, g3), v4(g6 ^ 0xffff, g7 ^ 0xffff)];
  return [];
}

/**
 * Whether a request to `ip` would reach a private, loopback, link-local, unspecified or
 * otherwise non-public address, including one hidden inside an IPv6 form (see embeddedIPv4).
 * Not an IP address at all → false (names are checked by what they resolve to).
 */
export function isPrivateAddress(ip: string): boolean {
  const family = isIP(ip.replace(/%.*$/, ''));
  if (family === 4) return PRIVATE.check(ip, 'ipv4');
  const groups = ipv6Groups(ip);
  if (!groups) return false;
  const canonical = groups.map((x) => x.toString(16)).join(':');
  if (PRIVATE.check(canonical, 'ipv6')) return true;
  return embeddedIPv4(groups).some((a) => PRIVATE.check(a, 'ipv4'));
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
  // `localhost.` is the same name as `localhost` (the root label), so trailing dots go first.
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.+$/, '');
  if (host === 'localhost' || host.endsWith('.localhost') || isPrivateAddress(host)) {
    return 'must not point to a private, loopback or link-local address';
  }
  return null;
}
