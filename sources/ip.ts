/**
 * An address and where it is: the one in `?ip=` (as 60s accepts), else the caller's own. The
 * caller's address is the connection's (or the first X-Forwarded-For entry with TRUST_PROXY);
 * the kernel fills the `ip` parameter with it, so the geolocation is cached per address. The lookup names the address in the URL
 * (https://api.ip.sb/geoip/<ip>, fallback http://ip-api.com/json/<ip>): the reference project
 * called ip.sb without one and so reported the server's location to everybody. Private,
 * loopback and other non-public callers get their address with `is_private: true` and no
 * lookup: no third party is asked for "our" public address.
 */
import { escapeHtml, escapeMarkdown } from '../src/encoding/escape.ts';
import { SourceError } from '../src/kernel/errors.ts';
import { missingPath, need } from '../src/kernel/json-path.ts';
import { classifyAddress } from '../src/kernel/net-address.ts';
import { defineSource } from '../src/kernel/source.ts';
import { formatDateTime } from '../src/kernel/time.ts';
import { asNumber, asRecord, asString } from './_shared/hot-list.ts';

export const IP_SB = 'https://api.ip.sb/geoip/';
export const IP_API = 'http://ip-api.com/json/';
const IP_API_FIELDS = 'status,message,continentCode,country,countryCode,region,regionName,city,zip,lat,lon,timezone,isp,org,as,query';

export interface Geo {
  country: string | null;
  country_code: string | null;
  region: string | null;
  region_code: string | null;
  city: string | null;
  postal_code: string | null;
  latitude: number | null;
  longitude: number | null;
  timezone: string | null;
  isp: string | null;
  organization: string | null;
  asn: number | null;
  asn_organization: string | null;
  continent_code: string | null;
}

/** Facts 60s names differently, as 60s's strings (empty when unknown). */
export interface SixtySecondsIpFields {
  continent: string;
  zipcode: string;
  /** How precise the location is; neither lookup service says, so always empty. */
  accuracy: string;
  owner: string;
  areacode: string;
  /** Chinese administrative division code; the lookup services give none, so always empty. */
  adcode: string;
  asnumber: string;
  /** 60s passes ip.sb's numbers through, and '' when the service gives none. */
  lat: number | '';
  lng: number | '';
  /** Radius of the location in km; the lookup services give none, so always empty. */
  radius: string;
  prov: string;
  /** District (区县); the lookup services give none, so always empty. */
  district: string;
}

export interface IpData extends Omit<Geo, 'country' | 'city' | 'timezone' | 'isp'>, SixtySecondsIpFields {
  ip: string;
  /** Empty when unknown (as in 60s). */
  country: string;
  city: string;
  timezone: string;
  isp: string;
  version: 4 | 6;
  /** Not a public internet address (private, loopback, link-local, CGNAT, unique-local...). */
  is_private: boolean;
  /** The address range: `unicast` for public addresses, else e.g. `private`, `loopback`. */
  range: string;
  /** Which service located the address; empty when none was asked. */
  source: 'ip.sb' | 'ip-api.com' | '';
  updated: string;
  updated_at: number;
}

const NO_GEO: Geo = {
  country: null,
  country_code: null,
  region: null,
  region_code: null,
  city: null,
  postal_code: null,
  latitude: null,
  longitude: null,
  timezone: null,
  isp: null,
  organization: null,
  asn: null,
  asn_organization: null,
  continent_code: null,
};

function text(v: unknown): string | null {
  const s = asString(v)?.trim();
  return s ? s : null;
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** api.ip.sb/geoip/<ip>: flat object with `ip`, `country_code`, `asn`, `latitude`... */
export function parseIpSb(raw: unknown, ip: string): Geo {
  const r = need(raw, '', asRecord, 'a JSON object');
  if (!text(r.ip)) {
    const message = text(r.message);
    if (message) throw new SourceError('transient', `ip.sb refused the lookup: ${message}`);
    throw missingPath(r, 'ip', 'the looked-up address');
  }
  if (classifyAddress(text(r.ip) as string)?.address !== classifyAddress(ip)?.address) throw new SourceError('parse', `ip.sb answered for ${String(r.ip)} instead of ${ip}`);
  return {
    country: text(r.country),
    country_code: text(r.country_code),
    region: text(r.region),
    region_code: text(r.region_code),
    city: text(r.city),
    postal_code: text(r.postal_code),
    latitude: num(r.latitude),
    longitude: num(r.longitude),
    timezone: text(r.timezone),
    isp: text(r.isp),
    organization: text(r.organization),
    asn: asNumber(r.asn) ?? null,
    asn_organization: text(r.asn_organization),
    continent_code: text(r.continent_code),
  };
}

/** ip-api.com/json/<ip>: `status: success|fail`, `countryCode`, `regionName`, `lat`/`lon`, `as: "AS15169 Google LLC"`. */
export function parseIpApi(raw: unknown): Geo {
  const r = need(raw, '', asRecord, 'a JSON object');
  if (r.status !== 'success') throw new SourceError(r.status === 'fail' ? 'transient' : 'parse', `ip-api answered status=${JSON.stringify(r.status)}${text(r.message) ? ` (${text(r.message)})` : ''}`);
  const as = text(r.as);
  const asMatch = as ? /^AS(\d+)\s*(.*)$/i.exec(as) : null;
  return {
    country: text(r.country),
    country_code: text(r.countryCode),
    region: text(r.regionName),
    region_code: text(r.region),
    city: text(r.city),
    postal_code: text(r.zip),
    latitude: num(r.lat),
    longitude: num(r.lon),
    timezone: text(r.timezone),
    isp: text(r.isp),
    organization: text(r.org),
    asn: asMatch ? Number(asMatch[1]) : null,
    asn_organization: asMatch ? (text(asMatch[2]) ?? null) : null,
    continent_code: text(r.continentCode),
  };
}

/** A coordinate stored as text by an older release, as the number 60s answers. */
function coordinate(v: unknown): number | '' {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : '';
}

const str = (v: string | number | null) => (v === null ? '' : String(v));

export function build(ip: string, version: 4 | 6, range: string, isPrivate: boolean, geo: Geo, source: IpData['source'], now: Date): IpData {
  const at = now.getTime();
  return {
    ip,
    version,
    is_private: isPrivate,
    range,
    ...geo,
    country: str(geo.country),
    city: str(geo.city),
    timezone: str(geo.timezone),
    isp: str(geo.isp),
    continent: str(geo.continent_code),
    zipcode: str(geo.postal_code),
    accuracy: '',
    owner: str(geo.organization ?? geo.asn_organization),
    areacode: str(geo.country_code),
    adcode: '',
    asnumber: str(geo.asn),
    lat: geo.latitude ?? '',
    lng: geo.longitude ?? '',
    radius: '',
    prov: str(geo.region),
    district: '',
    source,
    updated: formatDateTime(at),
    updated_at: at,
  };
}

/**
 * An answer stored before 60s's shape (release 271b638): the location facts under our names only,
 * unknown ones null, `source` null when none was asked. It is rebuilt from those facts as of its
 * fetch time, so it reads as a lookup today would. Today's data passes unchanged.
 */
export function migrate(stored: unknown): IpData | undefined {
  const d = asRecord(stored);
  if (d && 'prov' in d) return (typeof d.lat === 'string' && d.lat !== '') || (typeof d.lng === 'string' && d.lng !== '') ? ({ ...d, lat: coordinate(d.lat), lng: coordinate(d.lng) } as unknown as IpData) : (d as unknown as IpData);
  if (!d) return undefined;
  if (typeof d.ip !== 'string' || (d.version !== 4 && d.version !== 6) || typeof d.updated_at !== 'number') return undefined;
  const geo = Object.fromEntries(Object.keys(NO_GEO).map((k) => [k, d[k] ?? null])) as unknown as Geo;
  const source = d.source === 'ip.sb' || d.source === 'ip-api.com' ? d.source : '';
  return build(d.ip, d.version, asString(d.range) ?? '', d.is_private === true, geo, source, new Date(d.updated_at));
}

function place(d: IpData): string {
  return [d.country, d.region, d.city].filter((x, i, a) => x && a.indexOf(x) === i).join(' ');
}

/** Label and value of every known fact about the address. */
function fieldList(d: IpData): [string, string][] {
  const rows: [string, string | null | undefined][] = d.is_private
    ? [
        ['版本', `IPv${d.version}`],
        ['类型', `内网或保留地址（${d.range}），不做地理定位`],
      ]
    : [
        ['版本', `IPv${d.version}`],
        ['位置', place(d) || null],
        ['国家代码', d.country_code],
        ['运营商', d.isp],
        ['组织', d.organization],
        ['ASN', d.asn === null ? null : `AS${d.asn}${d.asn_organization ? ` ${d.asn_organization}` : ''}`],
        ['时区', d.timezone],
        ['坐标', d.latitude === null || d.longitude === null ? null : `${d.latitude}, ${d.longitude}`],
        ['数据来源', d.source],
      ];
  return rows.filter((r): r is [string, string] => !!r[1]);
}

export default defineSource({
  id: 'ip',
  name: 'IP 地址',
  description: "An IP address (`ip`; the caller's own by default, from X-Forwarded-For only with TRUST_PROXY) and its geolocation: country, region, city, ISP, ASN, coordinates. Private and loopback addresses get is_private: true and no location. encoding=text answers the bare address.",
  routes: [{ path: '/ip' }],
  params: {
    ip: {
      type: 'string',
      in: 'client-ip',
      queryOverride: true,
      maxLength: 64,
      pattern: /^\[?[0-9A-Fa-f:.]+(?:%[\w.-]+)?\]?$/,
      patternDoc: 'an IPv4 or IPv6 address such as 8.8.8.8',
      normalize: (v) => classifyAddress(v)?.address ?? v,
      doc: "The address to look up; the caller's own address when absent.",
      example: '8.8.8.8',
    },
  },
  mode: 'on-demand',
  freshness: { ttlSec: 86_400, timeoutMs: 25_000, backoffCapSec: 600 },
  maxKeys: 5000,
  concurrency: 4,
  headers: { accept: 'application/json' },
  async fetch(ctx, p) {
    const info = p.ip ? classifyAddress(p.ip) : undefined;
    if (!info) throw new SourceError('bad_input', 'Invalid parameter "ip": an IPv4 or IPv6 address such as 8.8.8.8 (the address of this request when absent, which could not be read).');
    if (!info.isPublic) return build(info.address, info.version, info.range, true, NO_GEO, '', ctx.now());
    try {
      const geo = parseIpSb(await ctx.http.json(`${IP_SB}${info.address}`, { signal: ctx.signal }), info.address);
      return build(info.address, info.version, info.range, false, geo, 'ip.sb', ctx.now());
    } catch (first) {
      if (ctx.signal.aborted) throw first;
      try {
        const geo = parseIpApi(await ctx.http.json(`${IP_API}${info.address}`, { searchParams: { lang: 'zh-CN', fields: IP_API_FIELDS }, signal: ctx.signal }));
        return build(info.address, info.version, info.range, false, geo, 'ip-api.com', ctx.now());
      } catch {
        // Report the primary service's failure: it is the one to look at first.
        throw first;
      }
    }
  },
  migrate,
  validate(d: IpData) {
    if (!d.ip) return 'no address';
    if (!d.is_private && !d.country && !d.country_code) return 'the lookup located nothing (no country)';
    return undefined;
  },
  count: () => 1,
  view: {
    title: (d: IpData) => `IP ${d.ip}`,
    text: (d) => d.ip,
    markdown: (d) =>
      `## ${d.ip}\n\n| 项目 | 内容 |\n| --- | --- |\n${fieldList(d)
        .map(([k, v]) => `| ${k} | ${escapeMarkdown(v)} |`)
        .join('\n')}\n`,
    htmlBody: (d) =>
      `<table><tbody>\n${fieldList(d)
        .map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`)
        .join('\n')}\n</tbody></table>`,
  },
  example: '/v2/apis/ip?encoding=text',
});
