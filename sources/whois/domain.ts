/**
 * Domain input for whois: whatever the caller pasted (a URL, `host:port`, an IDN in Unicode)
 * becomes the ASCII (punycode) host, its Unicode form, and the registrable domain, i.e. the
 * name a registry holds a record for (`www.bbc.co.uk` → `bbc.co.uk`). Multi-label registry
 * suffixes come from data/domain-suffixes.json; otherwise the suffix is the top-level domain.
 */
import { domainToASCII, domainToUnicode } from 'node:url';
import suffixList from '../../data/domain-suffixes.json' with { type: 'json' };
import { SourceError } from '../../src/kernel/errors.ts';
import { isIpAddress } from '../../src/kernel/net-address.ts';

const SUFFIXES = new Set(suffixList.map((s) => domainToASCII(s)).filter(Boolean));
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

export interface DomainName {
  /** The host as given, in ASCII (punycode). */
  host: string;
  /** The registrable domain in ASCII, e.g. `xn--fiqs8s.cn` or `bbc.co.uk`. */
  ascii: string;
  /** The registrable domain in Unicode. */
  unicode: string;
  /** The registry suffix, e.g. `co.uk` or `com`. */
  suffix: string;
  /** The top-level domain in ASCII. */
  tld: string;
}

function refuse(message: string): SourceError {
  const accepted = /such as/.test(message) ? '' : '; give a registered domain name such as example.com or 例子.中国 (a URL or a subdomain is reduced to it)';
  return new SourceError('bad_input', `Invalid parameter "domain": ${message}${accepted}.`);
}

/** The host part of a pasted value: scheme, user info, path, query and port removed. */
export function hostOf(input: string): string {
  let v = input.trim().toLowerCase();
  v = v.replace(/^[a-z][a-z0-9+.-]*:\/\//, '').replace(/^\/\//, '');
  v = v.split(/[/?#\\]/)[0] ?? '';
  v = v.slice(v.lastIndexOf('@') + 1);
  if (v.startsWith('[')) return v.slice(0, v.indexOf(']') + 1);
  return v.replace(/:\d*$/, '').replace(/\.+$/, '');
}

/** Normalise a caller's domain; throws a `bad_input` SourceError saying what is wrong. */
export function normalizeDomain(input: string): DomainName {
  const host = hostOf(input);
  if (!host) throw refuse('it holds no host name');
  if (isIpAddress(host)) throw refuse(`"${host}" is an IP address; whois answers for domain names such as example.com`);
  const ascii = domainToASCII(host);
  if (!ascii) throw refuse(`"${host}" is not a valid domain name`);
  const labels = ascii.split('.');
  if (ascii.length > 253 || labels.some((l) => !LABEL.test(l))) throw refuse(`"${host}" is not a valid domain name`);
  if (labels.length < 2) throw refuse(`"${host}" is a top-level domain; give a domain such as example.${host}`);
  const tld = labels[labels.length - 1] as string;
  if (/^\d+$/.test(tld)) throw refuse(`"${host}" is not a valid domain name`);
  let suffixLabels = 1;
  for (let n = labels.length; n >= 2; n--) {
    if (SUFFIXES.has(labels.slice(-n).join('.'))) {
      suffixLabels = n;
      break;
    }
  }
  if (labels.length <= suffixLabels) throw refuse(`"${host}" is a registry suffix, not a registered domain; give a domain such as example.${ascii}`);
  const registrable = labels.slice(-(suffixLabels + 1)).join('.');
  return { host: ascii, ascii: registrable, unicode: domainToUnicode(registrable), suffix: labels.slice(-suffixLabels).join('.'), tld };
}
