/** Per-key policy rules as pure functions: model patterns, IP allowlists, expiry, quota. */
import ipaddr from 'ipaddr.js';

/** `*` matches any run of characters; everything else is literal. An empty list permits every model. */
export function modelPermitted(patterns: readonly string[], model: string): boolean {
  if (patterns.length === 0) return true;
  return patterns.some((p) => (p.includes('*') ? globToRegExp(p).test(model) : p === model));
}

function globToRegExp(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`, 's');
}

export function validateModelPattern(p: string): string | undefined {
  if (p.length === 0 || p.length > 200) return `model pattern "${p}" must be 1 to 200 characters`;
  if (/\s/.test(p)) return `model pattern "${p}" must not contain whitespace`;
  return undefined;
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** A CIDR (`10.0.0.0/8`, `2001:db8::/32`) or a single address (treated as /32 or /128). */
export function parseIpRule(rule: string): Range | undefined {
  try {
    if (rule.includes('/')) {
      const [addr, bits] = ipaddr.parseCIDR(rule);
      return [normalise(addr), addr.kind() === 'ipv6' && normalise(addr).kind() === 'ipv4' ? Math.max(0, bits - 96) : bits];
    }
    if (!ipaddr.isValid(rule)) return undefined;
    const addr = ipaddr.process(rule);
    return [addr, addr.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return undefined;
  }
}

function normalise(addr: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() ? (addr as ipaddr.IPv6).toIPv4Address() : addr;
}

export function validateIpRule(rule: string): string | undefined {
  return parseIpRule(rule) ? undefined : `"${rule}" is not an IPv4/IPv6 address or CIDR (e.g. 203.0.113.0/24, 2001:db8::/32)`;
}

/** An empty list permits every address. IPv4-mapped IPv6 addresses are matched as IPv4. */
export function ipPermitted(rules: readonly string[], ip: string): boolean {
  if (rules.length === 0) return true;
  if (!ipaddr.isValid(ip)) return false;
  const addr = ipaddr.process(ip);
  return rules.some((rule) => {
    const range = parseIpRule(rule);
    if (!range || range[0].kind() !== addr.kind()) return false;
    return addr.kind() === 'ipv4' ? (addr as ipaddr.IPv4).match(range as [ipaddr.IPv4, number]) : (addr as ipaddr.IPv6).match(range as [ipaddr.IPv6, number]);
  });
}

export function quotaExhausted(quotaTokens: number | null, usedTokens: number): boolean {
  return quotaTokens !== null && usedTokens >= quotaTokens;
}
