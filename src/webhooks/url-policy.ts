import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { badRequest } from '../shared/errors.ts';

/** Resolves a host name to every address it has (node:dns lookup with all: true). */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export interface UrlPolicy {
  /** `--allow-insecure-webhooks`: plain http, and loopback addresses, for development and tests. */
  allowInsecure: boolean;
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
const isLoopback = (address: string) => LOOPBACK.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');

/**
 * Addresses a webhook may never reach (SSRF): everything that is not a public unicast address.
 * Metadata services (169.254.169.254, fd00:ec2::254) sit inside the link-local and private ranges.
 */
const INTERNAL: [string, number, 'ipv4' | 'ipv6', string][] = [
  ['0.0.0.0', 8, 'ipv4', 'unspecified'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['100.64.0.0', 10, 'ipv4', 'shared (CGNAT)'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['169.254.0.0', 16, 'ipv4', 'link-local'],
  ['172.16.0.0', 12, 'ipv4', 'private'],
  ['192.0.0.0', 24, 'ipv4', 'reserved'],
  ['192.0.2.0', 24, 'ipv4', 'documentation'],
  ['192.168.0.0', 16, 'ipv4', 'private'],
  ['198.18.0.0', 15, 'ipv4', 'benchmarking'],
  ['198.51.100.0', 24, 'ipv4', 'documentation'],
  ['203.0.113.0', 24, 'ipv4', 'documentation'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved'],
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  ['::', 96, 'ipv6', 'IPv4-compatible'],
  ['::ffff:0:0', 96, 'ipv6', 'IPv4-mapped'],
  ['64:ff9b::', 96, 'ipv6', 'NAT64'],
  ['64:ff9b:1::', 48, 'ipv6', 'local-use NAT64'],
  ['::ffff:0:0:0', 96, 'ipv6', 'IPv4-translated'],
  ['100::', 64, 'ipv6', 'discard'],
  ['2001:db8::', 32, 'ipv6', 'documentation'],
  ['fc00::', 7, 'ipv6', 'private (unique local)'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['fec0::', 10, 'ipv6', 'site-local'],
  ['ff00::', 8, 'ipv6', 'multicast'],
];
const RANGES = INTERNAL.map(([network, prefix, type, kind]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, type);
  return { list, type, kind };
});

/** An IPv6 address as its 16 bytes (handles `::` and a trailing dotted quad). */
function ipv6Bytes(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') as [string, string] : [text, null];
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const left = groups(head);
  const right = tail === null ? [] : groups(tail);
  const words = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return words.flatMap((word) => [word >> 8, word & 0xff]);
}

const startsWith = (bytes: number[], prefix: number[]) => prefix.every((byte, i) => bytes[i] === byte);
const quadOf = (bytes: number[]) => bytes.join('.');

/**
 * The IPv4 addresses an IPv6 address carries, which the network delivers to: IPv4-mapped
 * (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64
 * (64:ff9b::/96), 6to4 (2002:AABB:CCDD::/16) and Teredo (2001:0::/32: the server, and the client
 * with its bits inverted).
 */
export function embeddedIpv4(address: string): string[] {
  const bytes = ipv6Bytes(address);
  const low = bytes.slice(12);
  const zeros = (n: number) => Array<number>(n).fill(0);
  if (startsWith(bytes, [...zeros(10), 0xff, 0xff]) || startsWith(bytes, [...zeros(8), 0xff, 0xff, 0, 0])
    || (startsWith(bytes, zeros(12)) && low[0] !== 0)) { // ::a.b.c.d, but not :: or ::1
    return [quadOf(low)];
  }
  if (startsWith(bytes, [0, 0x64, 0xff, 0x9b, ...zeros(8)])) return [quadOf(low)];
  if (startsWith(bytes, [0x20, 0x02])) return [quadOf(bytes.slice(2, 6))];
  if (startsWith(bytes, [0x20, 0x01, 0, 0])) return [quadOf(bytes.slice(4, 8)), quadOf(low.map((byte) => byte ^ 0xff))];
  return [];
}

/** Why `address` may not be reached, or null when it may. */
export function refusedAddress(address: string, policy: UrlPolicy): string | null {
  const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  if (policy.allowInsecure && isLoopback(address)) return null;
  if (type === 'ipv6') {
    // Judged by the IPv4 address it carries: a 6to4 or Teredo form of 10.0.0.1 reaches 10.0.0.1.
    for (const inner of embeddedIpv4(address)) {
      const refused = refusedAddress(inner, { allowInsecure: false });
      if (refused) return `${address} carries ${refused}`;
    }
  }
  const range = RANGES.find((r) => r.type === type && r.list.check(address, type));
  return range ? `${address} is a ${range.kind} address` : null;
}

/** `localhost` and its subdomains always mean this machine (RFC 6761), whatever DNS says. */
const isLoopbackName = (hostname: string) => hostname === 'localhost' || hostname.endsWith('.localhost');

/** The URL's host without IPv6 brackets; WHATWG parsing already turned forms like 0x7f.1 into 127.0.0.1. */
const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** Whether the URL names this machine without DNS: a loopback address, or `localhost` and its subdomains. */
export function isLoopbackUrl(url: URL): boolean {
  const host = bareHost(url);
  return isIP(host) !== 0 ? isLoopback(host) : isLoopbackName(host);
}

/**
 * Checks what can be checked without DNS: the scheme, credentials, and an IP literal host.
 * Returns the reason the URL is refused, or null.
 */
export function urlRefusal(text: string, policy: UrlPolicy): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not a valid URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https URL';
  if (url.username || url.password) return 'must not contain a user name or password';
  const host = bareHost(url);
  const literal = isIP(host) !== 0;
  if (url.protocol === 'http:') {
    if (!policy.allowInsecure || !isLoopbackUrl(url)) {
      return 'must be an https URL (plain http is allowed only to loopback hosts on a server started with --allow-insecure-webhooks)';
    }
  }
  const refused = literal ? refusedAddress(host, policy) : null;
  return refused ? `must not point inside a private network (${refused})` : null;
}

/**
 * Resolves the URL's host and refuses it if ANY address is internal. Run at registration and again
 * before every delivery, so a name that later resolves inward is not followed. Returns the checked
 * addresses (empty for an IP literal host).
 */
export async function resolveSafely(text: string, policy: UrlPolicy, resolve: Resolver): Promise<{ address: string; family: number }[]> {
  const refusal = urlRefusal(text, policy);
  if (refusal) throw new Error(`The URL ${refusal}`);
  const url = new URL(text);
  const host = bareHost(url);
  if (isIP(host) !== 0) return [];
  const addresses = await resolve(host);
  if (addresses.length === 0) throw new Error(`${host} did not resolve to any address`);
  for (const { address } of addresses) {
    const refused = refusedAddress(address, policy);
    if (refused) throw new Error(`${host} resolves to ${refused}; webhooks may not reach private networks`);
    if (url.protocol === 'http:' && !isLoopback(address)) throw new Error(`${host} resolves to ${address}; plain http may only reach loopback`);
  }
  return addresses;
}

/**
 * The registration check, as a 400 naming the field. A name that does not resolve yet is accepted
 * (its deliveries fail and are retried until it does); one that resolves inward is refused.
 */
export async function checkWebhookUrl(text: string, policy: UrlPolicy, resolve: Resolver): Promise<void> {
  const refusal = urlRefusal(text, policy);
  if (refusal) throw badRequest(`"url" ${refusal}`);
  try {
    await resolveSafely(text, policy, resolve);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === undefined) throw badRequest(`"url" is refused: ${(error as Error).message}`);
  }
}
