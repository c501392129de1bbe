/**
 * Domain registration data. RDAP first: https://rdap.org/domain/<domain> redirects to the
 * registry's RDAP server. When RDAP has no answer or leaves out the registrar, the dates or the
 * name servers, the WHOIS protocol (TCP port 43) fills in: the TLD's server comes from the IANA
 * referral, then the registrar's server when the registry refers on. The caller's input may be
 * a URL, a host with a port or an IDN; the registrable domain is what gets looked up.
 */
import { escapeHtml, escapeMarkdown } from '../../src/encoding/escape.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { defineSource } from '../../src/kernel/source.ts';
import { DAY_MS, formatDateTime, formatSixtyDateTime, withSixtyDateTimes } from '../../src/kernel/time.ts';
import { normalizeDomain, type DomainName } from './domain.ts';
import { IANA_WHOIS, isNotFound, parseServerOverride, parseWhoisText, queryWhois, referralOf, type ServerOverride } from './protocol.ts';
import { parseRdap, RDAP_BOOTSTRAP, type RdapAnswer } from './rdap.ts';
import { incomplete, mergeFacts, type Registrant, type WhoisFacts } from './record.ts';

export interface WhoisData {
  /** The registrable domain in ASCII (punycode). */
  domain: string;
  unicode_domain: string;
  punycode_domain: string;
  /** The host that was asked about, normalised. */
  query: string;
  status: string[];
  /** Empty when the registry does not say (as in 60s). */
  registrar: string;
  registrar_iana_id: string | null;
  registrar_url: string | null;
  /** Every field empty when not published. */
  registrant: { name: string; organization: string; email: string; country: string };
  nameservers: string[];
  dnssec: boolean | null;
  /** Date-times are empty and their `_at` null when the registry does not say. */
  created: string;
  created_at: number | null;
  /** Last change of the registration (60s's `updated`; `changed` is the same). */
  updated: string;
  updated_at: number | null;
  changed: string;
  changed_at: number | null;
  expires: string;
  expires_at: number | null;
  /** Milliseconds since registration, and that time in words. */
  duration: number | null;
  duration_desc: string;
  /** Whole days since registration. */
  age_days: number | null;
  age_desc: string | null;
  source: 'rdap' | 'whois' | 'rdap+whois';
  rdap_server: string | null;
  whois_server: string | null;
  /** When we asked. */
  fetched: string;
  fetched_at: number;
}

const WHOIS_TIMEOUT_MS = 8_000;
const WHOIS_MAX_BYTES = 256 * 1024;
/** Registries of these TLDs write local (UTC+8) times without a zone. */
const UTC8_TLDS = new Set(['cn', 'hk', 'mo', 'tw', 'xn--fiqs8s', 'xn--fiqz9s']);

/** `N 年 M 天` from a number of days. */
export function ageDesc(days: number): string {
  const years = Math.floor(days / 365);
  const rest = days - years * 365;
  return years ? `${years} 年 ${rest} 天` : `${rest} 天`;
}

function pair(ms: number | null): [string, number | null] {
  return ms === null ? ['', null] : [formatSixtyDateTime(ms), ms];
}

/**
 * A record stored before 60s's shape (release 271b638): unknown texts were null, `updated` was our
 * fetch time and the last change was `changed` only. Texts become empty, `updated` the last change,
 * `fetched` the fetch time, and `duration` is counted from registration to that fetch. Today's
 * data passes unchanged.
 */
/** The fields whose date-time text has 60s's `YYYY/MM/DD HH:mm:ss` form (`changed` is `updated` under our name). */
const SIXTY_TIMES = ['created', 'updated', 'changed', 'expires'];

export function migrate(stored: unknown): WhoisData | undefined {
  if (!stored || typeof stored !== 'object') return undefined;
  if ('fetched' in stored) return withSixtyDateTimes(stored as WhoisData, SIXTY_TIMES);
  const d = stored as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const ms = (v: unknown) => (typeof v === 'number' ? v : null);
  const registrant = (d.registrant ?? {}) as Record<string, unknown>;
  const fetchedAt = ms(d.updated_at) ?? 0;
  const createdAt = ms(d.created_at);
  const { updated, updated_at, ...rest } = d;
  return withSixtyDateTimes({
    ...rest,
    registrar: text(d.registrar),
    registrant: { name: text(registrant.name), organization: text(registrant.organization), email: text(registrant.email), country: text(registrant.country) },
    created: text(d.created),
    updated: text(d.changed),
    updated_at: ms(d.changed_at),
    changed: text(d.changed),
    expires: text(d.expires),
    duration: createdAt === null ? null : Math.max(0, fetchedAt - createdAt),
    duration_desc: text(d.age_desc),
    fetched: text(updated),
    fetched_at: fetchedAt,
  } as unknown as WhoisData, SIXTY_TIMES);
}

export function buildData(name: DomainName, facts: WhoisFacts, meta: { source: WhoisData['source']; rdapServer: string | null; whoisServer: string | null }, now: Date): WhoisData {
  const at = now.getTime();
  const [created, createdAt] = pair(facts.created_at);
  const [changed, changedAt] = pair(facts.changed_at);
  const [expires, expiresAt] = pair(facts.expires_at);
  const ageDays = facts.created_at === null ? null : Math.max(0, Math.floor((at - facts.created_at) / DAY_MS));
  return {
    domain: name.ascii,
    unicode_domain: name.unicode,
    punycode_domain: name.ascii,
    query: name.host,
    status: facts.status,
    registrar: facts.registrar ?? '',
    registrar_iana_id: facts.registrar_iana_id,
    registrar_url: facts.registrar_url,
    registrant: {
      name: facts.registrant.name ?? '',
      organization: facts.registrant.organization ?? '',
      email: facts.registrant.email ?? '',
      country: facts.registrant.country ?? '',
    },
    nameservers: facts.nameservers,
    dnssec: facts.dnssec,
    created,
    created_at: createdAt,
    updated: changed,
    updated_at: changedAt,
    changed,
    changed_at: changedAt,
    expires,
    expires_at: expiresAt,
    duration: facts.created_at === null ? null : Math.max(0, at - facts.created_at),
    duration_desc: ageDays === null ? '' : ageDesc(ageDays),
    age_days: ageDays,
    age_desc: ageDays === null ? null : ageDesc(ageDays),
    source: meta.source,
    rdap_server: meta.rdapServer,
    whois_server: meta.whoisServer,
    fetched: formatDateTime(at),
    fetched_at: at,
  };
}

/** Label and value of every known fact, in reading order (`withServers`: DNS servers inline). */
function fieldList(d: WhoisData, withServers = true): [string, string][] {
  const rows: [string, string | null][] = [
    ['域名', d.unicode_domain === d.domain ? d.domain : `${d.unicode_domain} (${d.domain})`],
    ['注册商', d.registrar],
    ['注册时间', d.created],
    ['到期时间', d.expires],
    ['更新时间', d.changed],
    ['注册时长', d.age_desc],
    ['状态', d.status.join(', ') || null],
    ['DNS 服务器', withServers ? d.nameservers.join(', ') || null : null],
    ['DNSSEC', d.dnssec === null ? null : d.dnssec ? '已签名' : '未签名'],
    ['注册人', [d.registrant.name, d.registrant.organization].filter(Boolean).join(' / ') || null],
    ['注册人邮箱', d.registrant.email],
    ['注册人国家', d.registrant.country],
    ['数据来源', [d.source, d.rdap_server, d.whois_server].filter(Boolean).join(' · ')],
  ];
  return rows.filter((r): r is [string, string] => !!r[1]);
}

/** WHOIS server per TLD, from IANA referrals (kept for the life of the process). */
const tldServers = new Map<string, string>();

export interface WhoisAnswer {
  facts: WhoisFacts;
  server: string;
}

/** The WHOIS protocol path: IANA referral → registry → (registrar). `not_found` when the registry says so. */
export async function whoisLookup(name: DomainName, opts: { override: ServerOverride | undefined; signal: AbortSignal }): Promise<WhoisAnswer> {
  const q = { timeoutMs: WHOIS_TIMEOUT_MS, maxBytes: WHOIS_MAX_BYTES, signal: opts.signal, override: opts.override };
  let server = tldServers.get(name.tld);
  if (!server) {
    const iana = await queryWhois(IANA_WHOIS, name.tld, q);
    server = referralOf(iana) ?? undefined;
    if (!server) throw new SourceError('transient', `IANA names no WHOIS server for .${name.tld}`);
    if (tldServers.size > 500) tldServers.clear();
    tldServers.set(name.tld, server);
  }
  const offset = UTC8_TLDS.has(name.tld) ? '+08:00' : '+00:00';
  const registryText = await queryWhois(server, name.ascii, q);
  if (isNotFound(registryText)) throw new SourceError('not_found', `no registration was found for ${name.unicode}`);
  let facts = parseWhoisText(registryText, offset);
  let answeredBy = server;
  const referral = referralOf(registryText);
  if (referral && referral !== server) {
    try {
      const registrarText = await queryWhois(referral, name.ascii, q);
      if (!isNotFound(registrarText)) {
        // The registry is authoritative for dates, status and name servers; the registrar knows the registrant.
        const registrar = parseWhoisText(registrarText, offset);
        facts = { ...mergeFacts(facts, registrar), registrant: mergeFacts(registrar, facts).registrant };
        answeredBy = referral;
      }
    } catch {
      // The registrar's server is optional: the registry's answer stands on its own.
    }
  }
  return { facts, server: answeredBy };
}

export default defineSource({
  id: 'whois',
  name: '域名 WHOIS',
  description: 'Registration data of a domain (registrar, dates, status, name servers, DNSSEC, registrant where published): RDAP first, the WHOIS protocol as fallback. Accepts URLs and internationalised domain names.',
  homepage: 'https://lookup.icann.org/',
  routes: [{ path: '/whois' }],
  params: {
    domain: { type: 'string', required: true, maxLength: 300, doc: 'Domain name, IDN or URL (scheme, path and port are ignored; subdomains resolve to the registered domain).', example: 'example.com' },
  },
  mode: 'on-demand',
  freshness: { ttlSec: 3600, timeoutMs: 30_000, backoffCapSec: 900 },
  maxKeys: 1000,
  concurrency: 4,
  headers: { accept: 'application/rdap+json, application/json;q=0.9' },
  env: [
    {
      name: 'SOURCE_WHOIS_SERVER_OVERRIDE',
      doc: 'Test/ops only: send port-43 WHOIS queries to `host:port`, or per server with `server=host:port,…` (`*` for the rest), instead of the real servers (with SOURCES_UPSTREAM_MIRROR set and no override, port-43 queries are not made)',
    },
    { name: 'SOURCES_UPSTREAM_MIRROR', core: true, doc: 'The HTTP mirror; it cannot carry port-43 WHOIS' },
  ],
  async fetch(ctx, p) {
    const name = normalizeDomain(p.domain);
    const override = parseServerOverride(ctx.env('SOURCE_WHOIS_SERVER_OVERRIDE'));
    // The mirror only rewrites HTTP: behind it (tests, offline demos) WHOIS goes to the override or nowhere.
    const whoisAllowed = !!override || !ctx.env('SOURCES_UPSTREAM_MIRROR');

    let rdap: RdapAnswer | undefined;
    let rdapError: SourceError | undefined;
    try {
      const res = await ctx.http.request(`${RDAP_BOOTSTRAP}${name.ascii}`, { allowStatus: [404], signal: ctx.signal });
      if (res.status === 404) {
        // A 404 from the registry's server (after the redirect) means "not registered"; from rdap.org itself, "no RDAP for this TLD".
        if (new URL(res.url).host !== new URL(RDAP_BOOTSTRAP).host) throw new SourceError('not_found', `no registration was found for ${name.unicode}`);
      } else {
        rdap = parseRdap(res.json(), name.unicode);
      }
    } catch (err) {
      if (err instanceof SourceError && err.kind === 'not_found') throw err;
      rdapError = err instanceof SourceError ? err : new SourceError('parse', (err as Error).message);
    }

    if (rdap && !incomplete(rdap)) return buildData(name, rdap, { source: 'rdap', rdapServer: rdap.server, whoisServer: null }, ctx.now());
    let whois: WhoisAnswer | undefined;
    try {
      if (!whoisAllowed) throw new SourceError('transient', 'WHOIS (port 43) is not used behind SOURCES_UPSTREAM_MIRROR without SOURCE_WHOIS_SERVER_OVERRIDE');
      whois = await whoisLookup(name, { override, signal: ctx.signal });
    } catch (err) {
      if (!rdap) {
        // Neither protocol answered: a definite "not registered" wins; otherwise RDAP's failure is the one to report.
        if (err instanceof SourceError && (err.kind === 'not_found' || err.kind === 'config')) throw err;
        throw rdapError ?? err;
      }
    }
    if (rdap && whois) return buildData(name, mergeFacts(rdap, whois.facts), { source: 'rdap+whois', rdapServer: rdap.server, whoisServer: whois.server }, ctx.now());
    if (rdap) return buildData(name, rdap, { source: 'rdap', rdapServer: rdap.server, whoisServer: null }, ctx.now());
    const w = whois as WhoisAnswer;
    return buildData(name, w.facts, { source: 'whois', rdapServer: null, whoisServer: w.server }, ctx.now());
  },
  migrate,
  validate(d: WhoisData) {
    if (!d.domain) return 'no domain';
    if (!d.registrar && d.created_at === null && d.expires_at === null && d.nameservers.length === 0 && d.status.length === 0) return 'the answer holds no registration data';
    return undefined;
  },
  count: () => 1,
  view: {
    title: (d: WhoisData) => `WHOIS：${d.unicode_domain}`,
    text: (d) => `${fieldList(d)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n')}\n`,
    markdown(d) {
      const table = fieldList(d, false)
        .map(([k, v]) => `| ${k} | ${escapeMarkdown(v)} |`)
        .join('\n');
      const ns = d.nameservers.length ? `\n\n## DNS 服务器\n\n${d.nameservers.map((n) => `- ${n}`).join('\n')}` : '';
      return `# WHOIS：${escapeMarkdown(d.unicode_domain)}\n\n| 字段 | 值 |\n| --- | --- |\n${table}${ns}\n`;
    },
    htmlBody: (d) =>
      `<table><tbody>\n${fieldList(d)
        .map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`)
        .join('\n')}\n</tbody></table>`,
  },
  example: '/v2/apis/whois?domain=example.com&encoding=text',
});
