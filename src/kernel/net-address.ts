/**
 * Classification of IP addresses: is an address on the public internet, or in a private,
 * loopback, link-local, carrier-grade NAT, unique-local, multicast, documentation or other
 * special range? Used to refuse requests to internal addresses (untrusted URLs) and to tell
 * callers that their own address is private.
 */
import ipaddr from 'ipaddr.js';

export interface AddressInfo {
  /** The address in its canonical text form (IPv4-mapped IPv6 is given as IPv4). */
  address: string;
  version: 4 | 6;
  /** ipaddr.js range name: `unicast` for public addresses, else `private`, `loopback`, `linkLocal`, `carrierGradeNat`, `uniqueLocal`... */
  range: string;
  /** A globally routable unicast address. */
  isPublic: boolean;
}

/** Whether a string is an IPv4 or IPv6 address (brackets allowed around IPv6). */
export function isIpAddress(value: string): boolean {
  return ipaddr.isValid(stripBrackets(value));
}

function stripBrackets(value: string): string {
  return value.startsWith('[') && value.endsWith(']') ? value.slice(1, -1) : value;
}

/** The IPv4 address embedded in an IPv6 one, for ranges that carry one (mapped, NAT64, 6to4). */
function embeddedIpv4(addr: ipaddr.IPv6, range: string): ipaddr.IPv4 | undefined {
  const b = addr.toByteArray();
  if (range === 'ipv4Mapped' || range === 'rfc6145' || range === 'rfc6052') return new ipaddr.IPv4(b.slice(12, 16));
  if (range === '6to4') return new ipaddr.IPv4(b.slice(2, 6));
  return undefined;
}

/** Classify an address; undefined when the string is not an IP address. */
export function classifyAddress(value: string): AddressInfo | undefined {
  const raw = stripBrackets(value.trim());
  // Zone ids (fe80::1%eth0) are only meaningful for link-local addresses.
  const text = raw.includes('%') ? (raw.split('%')[0] as string) : raw;
  if (!ipaddr.isValid(text)) return undefined;
  const parsed = ipaddr.parse(text);
  if (parsed.kind() === 'ipv4') {
    const range = parsed.range();
    return { address: parsed.toString(), version: 4, range, isPublic: range === 'unicast' };
  }
  const v6 = parsed as ipaddr.IPv6;
  const range = v6.range();
  const inner = embeddedIpv4(v6, range);
  if (inner) {
    const innerRange = inner.range();
    // An IPv4-mapped address is the IPv4 address itself; the other forms stay IPv6 addresses.
    if (range === 'ipv4Mapped') return { address: inner.toString(), version: 4, range: innerRange, isPublic: innerRange === 'unicast' };
    return { address: v6.toString(), version: 6, range: innerRange === 'unicast' ? range : innerRange, isPublic: innerRange === 'unicast' };
  }
  return { address: v6.toString(), version: 6, range, isPublic: range === 'unicast' };
}
