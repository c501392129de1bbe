/**
 * The WHOIS protocol (RFC 3912): open TCP port 43, send the query and CRLF, read until the
 * server closes. The server for a TLD comes from the IANA referral (`refer:` in the answer of
 * whois.iana.org for the TLD); a thin registry may refer on to the registrar's server
 * (`Registrar WHOIS Server:`). Answers are free text in many dialects, read here through a
 * table of field names. Timeouts and a size cap bound every query, and server names taken
 * from referrals must resolve to public addresses.
 */
import dns from 'node:dns';
import net from 'node:net';
import { SourceError } from '../../src/kernel/errors.ts';
import { classifyAddress } from '../../src/kernel/net-address.ts';
import { clean, emailOf, emptyFacts, published, type WhoisFacts } from './record.ts';

export const IANA_WHOIS = 'whois.iana.org';
export const WHOIS_PORT = 43;

export interface WhoisTarget {
  host: string;
  port: number;
}

/** Maps a WHOIS server name to where the query is actually sent (tests, egress proxies). */
export type ServerOverride = (server: string) => WhoisTarget | undefined;

function target(spec: string): WhoisTarget | undefined {
  const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(spec.trim());
  if (!m) return undefined;
  const port = Number(m[2]);
  return port > 0 && port < 65536 ? { host: m[1] as string, port } : undefined;
}

/**
 * `host:port` (every query goes there) or `server=host:port,…` with an optional `*=host:port`
 * for the rest. Throws a `config` SourceError for a malformed value.
 */
export function parseServerOverride(value: string | undefined): ServerOverride | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  const bad = () => new SourceError('config', `SOURCE_WHOIS_SERVER_OVERRIDE must be host:port or server=host:port,… (got "${v}")`);
  if (!v.includes('=')) {
    const all = target(v);
    if (!all) throw bad();
    return () => all;
  }
  const map = new Map<string, WhoisTarget>();
  for (const part of v.split(',')) {
    const [name, spec] = part.split('=').map((x) => x.trim());
    const t = target(spec ?? '');
    if (!name || !t) throw bad();
    map.set(name.toLowerCase(), t);
  }
  return (server) => map.get(server.toLowerCase()) ?? map.get('*');
}

/** Resolve a server name and refuse it unless every address is public (referrals are upstream data). */
async function publicTarget(server: string): Promise<WhoisTarget> {
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(server, { all: true });
  } catch (err) {
    throw new SourceError('transient', `WHOIS server ${server} could not be resolved (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const bad = addresses.find((a) => !classifyAddress(a.address)?.isPublic);
  if (!addresses.length || bad) throw new SourceError('transient', `WHOIS server ${server} resolves to a non-public address${bad ? ` (${bad.address})` : ''}; refused`);
  return { host: (addresses[0] as dns.LookupAddress).address, port: WHOIS_PORT };
}

export interface QueryOptions {
  timeoutMs: number;
  /** Bytes read at most; the answer is cut there (the facts come first in every dialect). */
  maxBytes: number;
  signal?: AbortSignal;
  override?: ServerOverride | undefined;
}

/** Send one WHOIS query and read the answer. */
export async function queryWhois(server: string, query: string, opts: QueryOptions): Promise<string> {
  const t = opts.override?.(server) ?? (await publicTarget(server));
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const socket = net.connect({ host: t.host, port: t.port });
    const finish = (err?: SourceError) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      opts.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      if (err) reject(err);
      else resolve(new TextDecoder('utf-8').decode(Buffer.concat(chunks)));
    };
    const onAbort = () => finish(new SourceError('transient', `WHOIS query to ${server} was aborted`));
    const deadline = setTimeout(() => finish(new SourceError('transient', `WHOIS server ${server} did not answer within ${opts.timeoutMs} ms`)), opts.timeoutMs);
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    socket.setTimeout(opts.timeoutMs, () => finish(new SourceError('transient', `WHOIS server ${server} went silent`)));
    socket.once('connect', () => socket.write(`${query}\r\n`));
    socket.on('data', (chunk: Buffer) => {
      const room = opts.maxBytes - size;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      size += chunk.length;
      if (size >= opts.maxBytes) finish();
    });
    socket.once('end', () => finish());
    socket.once('error', (err: NodeJS.ErrnoException) => finish(new SourceError('transient', `WHOIS server ${server} failed (${err.code ?? err.message})`)));
  });
}

/** Lines `key: value`; a key without a value followed by indented lines (Nominet style) is a block. */
export function whoisFields(text: string): Map<string, string[]> {
  const fields = new Map<string, string[]>();
  const add = (k: string, v: string) => {
    const value = v.trim();
    if (value) fields.set(k, [...(fields.get(k) ?? []), value]);
  };
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (/^\s*[%#>]/.test(line)) continue;
    const m = /^\s*([A-Za-z][\w /().-]{0,60}?)\s*:\s*(.*)$/.exec(line);
    if (!m) continue;
    const key = (m[1] as string).toLowerCase().replace(/\s+/g, ' ').replace(/\.+$/, '');
    const value = m[2] as string;
    if (value.trim()) {
      add(key, value);
      continue;
    }
    const indent = /^\s*/.exec(line)?.[0].length ?? 0;
    while (i + 1 < lines.length) {
      const next = lines[i + 1] as string;
      if (!next.trim() || (/^\s*/.exec(next)?.[0].length ?? 0) <= indent) break;
      i++;
      // Inside a block, `Sub key: value` lines are fields of their own.
      const sub = /^\s*([A-Za-z][\w /().-]{0,40}?)\s*:\s+(.+)$/.exec(next);
      if (sub && !/^https?$/i.test(sub[1] as string)) add((sub[1] as string).toLowerCase(), sub[2] as string);
      else add(key, next);
    }
  }
  return fields;
}

const ALIASES = {
  registrar: ['registrar', 'sponsoring registrar', 'registrar name', 'registrar organization', 'registrar organisation'],
  registrarIana: ['registrar iana id'],
  registrarUrl: ['registrar url', 'url'],
  created: ['creation date', 'created', 'created on', 'created date', 'registration time', 'registered on', 'registration date', 'domain registration date', 'registered'],
  changed: ['updated date', 'last updated', 'last updated on', 'last modified', 'last-update', 'changed', 'modified', 'last update'],
  expires: ['registry expiry date', 'registrar registration expiration date', 'expiration date', 'expiration time', 'expiry date', 'expires', 'expires on', 'expire date', 'paid-till', 'domain expiration date'],
  status: ['domain status', 'status', 'state'],
  nameservers: ['name server', 'name servers', 'nameserver', 'nameservers', 'nserver', 'dns'],
  dnssec: ['dnssec', 'signing key'],
  registrantName: ['registrant name', 'registrant', 'holder'],
  registrantOrg: ['registrant organization', 'registrant organisation', 'org', 'organisation'],
  registrantEmail: ['registrant email', 'registrant contact email', 'registrant e-mail'],
  registrantCountry: ['registrant country', 'registrant country/economy', 'country'],
  referral: ['registrar whois server', 'referralserver', 'whois server', 'refer', 'whois'],
} as const;

function first(fields: Map<string, string[]>, names: readonly string[]): string | null {
  for (const n of names) {
    const v = fields.get(n)?.[0];
    if (v) return clean(v);
  }
  return null;
}

function all(fields: Map<string, string[]>, names: readonly string[]): string[] {
  for (const n of names) {
    const v = fields.get(n);
    if (v?.length) return v;
  }
  return [];
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** WHOIS dates: ISO 8601, `YYYY-MM-DD hh:mm:ss` (in `offset` when no zone is given), `DD-Mon-YYYY`, `YYYY/MM/DD`. */
export function parseWhoisDate(value: string | null, offset = '+00:00'): number | null {
  if (!value) return null;
  const v = value.trim();
  const iso = /^(\d{4})[-/.](\d{2})[-/.](\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?\s*(Z|UTC|GMT|[+-]\d{2}:?\d{2})?/i.exec(v);
  if (iso) {
    const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone] = iso;
    const z = !zone ? offset : /^(z|utc|gmt)$/i.test(zone) ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
    const t = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${frac}${z}`);
    return Number.isFinite(t) ? t : null;
  }
  const dmy = /^(\d{1,2})[- ]([a-z]{3})[a-z]*[- ](\d{4})/i.exec(v);
  if (dmy) {
    const month = MONTHS.indexOf((dmy[2] as string).toLowerCase());
    if (month >= 0) return Date.UTC(Number(dmy[3]), month, Number(dmy[1]));
  }
  return null;
}

/** Registry answers that mean "no such domain". */
const NOT_FOUND = /^\s*(no match|not found|no data found|no entries found|no object found|domain not found|the queried object does not exist|status:\s*(free|available)|.*is available for registration|%% no entries found)/im;

export function isNotFound(text: string): boolean {
  return NOT_FOUND.test(text);
}

/** The next WHOIS server an answer points to (`whois://host:43` forms included), if any. */
export function referralOf(text: string): string | null {
  const raw = first(whoisFields(text), ALIASES.referral);
  if (!raw) return null;
  const host = raw.replace(/^r?whois:\/\//i, '').replace(/:\d+$/, '').replace(/\/.*$/, '').trim().toLowerCase();
  return /^[a-z0-9.-]+\.[a-z]{2,}$/.test(host) ? host : null;
}

/** Facts of a free-text WHOIS answer. `offset` is the zone of dates written without one. */
export function parseWhoisText(text: string, offset = '+00:00'): WhoisFacts {
  const f = whoisFields(text);
  const facts = emptyFacts();
  facts.registrar = first(f, ALIASES.registrar)?.replace(/\s*\[Tag = [^\]]*\]\s*$/, '') ?? null;
  facts.registrar_iana_id = first(f, ALIASES.registrarIana);
  const url = first(f, ALIASES.registrarUrl);
  facts.registrar_url = url && /^https?:\/\//i.test(url) ? url : url ? `http://${url}` : null;
  facts.created_at = parseWhoisDate(first(f, ALIASES.created), offset);
  facts.changed_at = parseWhoisDate(first(f, ALIASES.changed), offset);
  facts.expires_at = parseWhoisDate(first(f, ALIASES.expires), offset);
  facts.status = [...new Set(all(f, ALIASES.status).map((s) => s.split(/\s+/)[0] ?? '').filter(Boolean))];
  facts.nameservers = [...new Set(all(f, ALIASES.nameservers).map((n) => (n.split(/\s+/)[0] ?? '').toLowerCase().replace(/\.$/, '')).filter((n) => /^[a-z0-9.-]+\.[a-z0-9-]+$/.test(n)))];
  const dnssec = first(f, ALIASES.dnssec)?.toLowerCase();
  facts.dnssec = dnssec === undefined || dnssec === null ? null : /^(signed|yes|signeddelegation|true)/.test(dnssec) ? true : /^(unsigned|no|false|inactive)/.test(dnssec) ? false : null;
  facts.registrant = {
    name: published(first(f, ALIASES.registrantName)),
    organization: published(first(f, ALIASES.registrantOrg)),
    email: emailOf(first(f, ALIASES.registrantEmail)),
    country: published(first(f, ALIASES.registrantCountry)),
  };
  return facts;
}
