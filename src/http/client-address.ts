import { isIP } from 'node:net';

/**
 * Client addresses as the rate limits count them: one spelling per address, whatever a socket or
 * a proxy wrote, so one client never has two buckets.
 */

/** The longest entry looked at: an IPv6 address with brackets, a zone and a port fits many times over. */
const MAX_ENTRY = 100;

/**
 * The address in one entry, as proxies write them: `203.0.113.7`, `203.0.113.7:51234`,
 * `2001:db8::1`, `[2001:db8::1]:51234`, with spaces or quotes around; null when it holds no IP
 * address (`unknown`, an obfuscated name). Canonical: IPv4 dotted; IPv6 in lower case with the
 * longest run of zeros compressed (2001:DB8:0:0:0:0:0:1 is 2001:db8::1), its zone dropped, and an
 * IPv4-mapped one (::ffff:10.0.0.1, what a dual-stack socket reports) as the IPv4 address.
 */
export function canonicalAddress(entry: string): string | null {
  let text = entry.trim().replace(/^"(.*)"$/, '$1');
  if (text.length > MAX_ENTRY) return null;
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(text);
  if (bracketed) text = bracketed[1]!;
  else if (/^[\d.]+:\d{1,5}$/.test(text)) text = text.slice(0, text.indexOf(':'));
  text = text.replace(/%[\w.-]*$/, '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, ''); // a dual-stack socket's IPv4, without a URL parse
  const version = isIP(text);
  if (version === 4) return text;
  if (version !== 6) return null;
  const v6 = new URL(`http://[${text}]`).hostname.slice(1, -1);
  const mapped = /^::ffff:([\da-f]{1,4}):([\da-f]{1,4})$/.exec(v6);
  if (!mapped) return v6;
  const [high, low] = [Number.parseInt(mapped[1]!, 16), Number.parseInt(mapped[2]!, 16)];
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** The eight 16-bit groups of a canonical IPv6 address. */
function groups(v6: string): string[] {
  const [head, tail] = v6.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  if (tail === undefined) return left;
  const right = tail === '' ? [] : tail.split(':');
  return [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
}

/**
 * The key a client is counted under: an IPv4 address, or an IPv6 address's /64 network. One
 * subscriber is given a whole /64 and may use any address in it, so counting each address apart
 * would let one client multiply every per-address budget (failed keys, promo codes) by 2^64.
 */
export function rateKey(address: string): string {
  return isIP(address) === 6 ? `${groups(address).slice(0, 4).join(':')}::/64` : address;
}

/**
 * The client named by X-Forwarded-For, given the socket was a trusted proxy: walking from the
 * right, past the trusted proxies' own entries, the first other entry is the address the last
 * trusted proxy saw (entries further left are the client's own claims, and never believed).
 * An entry there that holds no address is kept as written, so such clients share one bucket
 * rather than fall back to a claim. All trusted: the left-most entry. No entries: null.
 */
export function forwardedClient(header: string, trusted: ReadonlySet<string>): string | null {
  const entries = header.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  for (let i = entries.length - 1; i >= 0; i--) {
    const address = canonicalAddress(entries[i]!);
    if (address === null) return `unparsed:${entries[i]!.slice(0, MAX_ENTRY).toLowerCase()}`;
    if (!trusted.has(address) || i === 0) return address;
  }
  return null;
}
