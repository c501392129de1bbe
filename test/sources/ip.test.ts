import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import ip, { build, parseIpApi, parseIpSb, type IpData } from '../../sources/ip.ts';
import { TestClock } from '../support/clock.ts';
import { expectUnavailable, getEncodings, readData, settle, sourceStatus } from '../support/envelope-assertions.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';

const read = (file: string) => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, file), 'utf8')) as Record<string, unknown>;
const IPSB_114 = 'api.ip.sb/geoip/114.114.114.114.json';
const IPSB_V6 = 'api.ip.sb/geoip/ipv6-240e-3b7-3272-d8d0--1.json';
const IPAPI_8 = 'ip-api.com/json/8.8.8.8.json';
const now = new Date('2026-11-21T02:00:00Z');

function validate(d: IpData): string | undefined {
  return ip.mode === 'local' ? 'local' : ip.validate(d);
}

describe('ip parsers', () => {
  it('reads ip.sb geolocation', () => {
    expect(parseIpSb(read(IPSB_114), '114.114.114.114')).toEqual({
      country: 'China',
      country_code: 'CN',
      region: 'Jiangsu',
      region_code: 'JS',
      city: 'Nanjing',
      postal_code: null,
      latitude: 32.0617,
      longitude: 118.7778,
      timezone: 'Asia/Shanghai',
      isp: 'NanJing XinFeng Information Technologies, Inc.',
      organization: 'NanJing XinFeng Information Technologies, Inc.',
      asn: 21859,
      asn_organization: 'Zenlayer Inc',
      continent_code: 'AS',
    });
    // The address is compared in canonical form.
    expect(parseIpSb(read(IPSB_V6), '240e:03b7:3272:d8d0:0:0:0:1').city).toBe('Guangzhou');
  });

  it('reads ip-api geolocation, ASN split from its "as" text', () => {
    expect(parseIpApi(read(IPAPI_8))).toMatchObject({ country: '美国', country_code: 'US', region: '弗吉尼亚州', region_code: 'VA', city: '阿什本', postal_code: '20149', asn: 15169, asn_organization: 'Google LLC', latitude: 39.03, longitude: -77.5 });
  });

  it('refuses answers about another address, errors and changed shapes', () => {
    expect(() => parseIpSb(read(IPSB_114), '1.1.1.1')).toThrow(/answered for 114.114.114.114 instead of 1.1.1.1/);
    expect(() => parseIpSb({ code: 401, message: 'Input string is not a valid IP address' }, '1.1.1.1')).toThrow(expect.objectContaining({ kind: 'transient' }));
    expect(() => parseIpSb({ data: {} }, '1.1.1.1')).toThrow(expect.objectContaining({ kind: 'parse' }));
    expect(() => parseIpApi({ status: 'fail', message: 'reserved range' })).toThrow(/reserved range/);
    expect(() => parseIpApi([])).toThrow(expect.objectContaining({ kind: 'parse' }));
  });

  it('rejects a public address located nowhere', () => {
    const geo = parseIpSb({ ip: '1.1.1.1' }, '1.1.1.1');
    const d = build('1.1.1.1', 4, 'unicast', false, geo, 'ip.sb', now);
    expect(validate(d)).toMatch(/no country/);
    expect(validate({ ...d, is_private: true })).toBeUndefined();
  });
});

describe('ip without TRUST_PROXY', () => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, sources: [ip] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it('answers the socket address, private, without asking anybody and ignoring forged headers', async () => {
    const d = await readData<IpData>(await svc.get('/v2/apis/ip', { headers: { 'x-forwarded-for': '114.114.114.114' } }));
    expect(d).toMatchObject({ ip: '127.0.0.1', version: 4, is_private: true, range: 'loopback', country: '', source: '' });
    const out = await getEncodings(svc, '/v2/apis/ip');
    expect(out.text).toBe('127.0.0.1');
    expect(out.markdown).toContain('## 127.0.0.1');
    expect(out.markdown).toContain('不做地理定位');
    expect(out.html).toContain('<h1>IP 127.0.0.1</h1>');
    expect(upstream.requests).toEqual([]);
  });

  it('lists the address as an optional query parameter in the catalogue', async () => {
    const cat = (await (await svc.get('/v2/apis')).json()) as { data: { endpoints: { path: string; params: { name: string }[] }[] } };
    expect(cat.data.endpoints.find((e) => e.path === '/v2/apis/ip')?.params).toMatchObject([{ name: 'ip', in: 'query', required: false }]);
  });

  it('looks up the address named in ?ip= (as 60s does), private ones without asking anybody', async () => {
    expect(await readData<IpData>(await svc.get('/v2/apis/ip?ip=10.1.2.3'))).toMatchObject({ ip: '10.1.2.3', is_private: true, range: 'private' });
    expect(await readData<IpData>(await svc.get('/v2/apis/ip?ip=%5B::1%5D'))).toMatchObject({ ip: '::1', is_private: true, range: 'loopback' });
    for (const bad of ['example.com', '1.2.3.4.5', '999.1.1.1']) {
      const res = await svc.get(`/v2/apis/ip?ip=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(((await res.json()) as { message: string }).message, bad).toMatch(/^Invalid parameter "ip": an IPv4 or IPv6 address/);
    }
    expect(upstream.requests).toEqual([]);
  });
});

describe('ip behind a trusted proxy', () => {
  const upstream = new Upstream();
  const clock = new TestClock();
  let svc: TestService;
  const as = (addr: string) => ({ headers: { 'x-forwarded-for': `${addr}, 10.0.0.2` } });

  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, now: clock.now, sources: [ip], env: { TRUST_PROXY: 'true', HTTP_TIMEOUT_MS: '600' } });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
    upstream.reset();
  });

  it("locates the caller's address (not the server's) and caches it per address", async () => {
    const first = await svc.get('/v2/apis/ip', as('114.114.114.114'));
    expect(first.headers.get('x-cache')).toBe('MISS');
    const d = await readData<IpData>(first);
    expect(d).toMatchObject({ ip: '114.114.114.114', version: 4, is_private: false, range: 'unicast', country: 'China', city: 'Nanjing', asn: 21859, source: 'ip.sb' });
    // 60s's names of the same facts: strings, but the coordinates are ip.sb's numbers as 60s passes them.
    expect(d).toMatchObject({ areacode: 'CN', asnumber: '21859', continent: 'AS', adcode: '', district: '' });
    expect(typeof d.lat).toBe('number');
    expect(typeof d.lng).toBe('number');
    expect(upstream.hits('api.ip.sb').map((r) => r.path)).toEqual(['/geoip/114.114.114.114']);

    const text = await svc.get('/v2/apis/ip?encoding=text', as('114.114.114.114'));
    expect(text.headers.get('x-cache')).toBe('HIT');
    expect(await text.text()).toBe('114.114.114.114');
    const md = await (await svc.get('/v2/apis/ip?encoding=markdown', as('114.114.114.114'))).text();
    expect(md).toContain('| 位置 | China Jiangsu Nanjing |');
    expect(md).toContain('| ASN | AS21859 Zenlayer Inc |');
    const html = await svc.get('/v2/apis/ip?encoding=html', as('114.114.114.114'));
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await html.text()).toContain('<td>Asia/Shanghai</td>');
    expect(upstream.hits('api.ip.sb')).toHaveLength(1);
  });

  it('locates IPv6 callers and treats private forwarded addresses as private', async () => {
    upstream.serveFile('api.ip.sb', '/geoip/240e:3b7:3272:d8d0::1', IPSB_V6);
    const v6 = await readData<IpData>(await svc.get('/v2/apis/ip', as('240e:03b7:3272:d8d0::1')));
    expect(v6).toMatchObject({ ip: '240e:3b7:3272:d8d0::1', version: 6, is_private: false, city: 'Guangzhou', asn: 4134 });

    const lan = await readData<IpData>(await svc.get('/v2/apis/ip', as('192.168.31.7')));
    expect(lan).toMatchObject({ ip: '192.168.31.7', is_private: true, range: 'private', country: '' });
    const cgnat = await readData<IpData>(await svc.get('/v2/apis/ip', as('100.72.1.9')));
    expect(cgnat).toMatchObject({ is_private: true, range: 'carrierGradeNat' });
    expect(upstream.hits('api.ip.sb')).toHaveLength(1);
  });

  it('falls back to ip-api when ip.sb refuses', async () => {
    upstream.serve('api.ip.sb', '/geoip/8.8.8.8', { status: 403, headers: { 'content-type': 'text/html' }, body: '<html><title>Attention Required! | Cloudflare</title></html>' });
    const d = await readData<IpData>(await svc.get('/v2/apis/ip', as('8.8.8.8')));
    expect(d).toMatchObject({ ip: '8.8.8.8', country_code: 'US', source: 'ip-api.com', asn: 15169 });
    const q = upstream.hits('ip-api.com')[0]!.query;
    expect(q.get('lang')).toBe('zh-CN');
    expect(q.get('fields')).toContain('countryCode');
  });

  it('answers 503 with Retry-After when no service can locate a new address', async () => {
    upstream.serve('api.ip.sb', /^\/geoip\//, { status: 500, body: 'oops' });
    upstream.serve('ip-api.com', /^\/json\//, { status: 503, body: 'busy' });
    await expectUnavailable(await svc.get('/v2/apis/ip', as('1.0.0.1')), /IP 地址.*HTTP 500/);

    clock.advance(1000);
    upstream.serve('api.ip.sb', /^\/geoip\//, { status: 403, headers: { 'content-type': 'text/html' }, body: '<html>Access denied</html>' });
    await expectUnavailable(await svc.get('/v2/apis/ip', as('1.0.0.2')), /HTTP 403/);
    expect((await sourceStatus(svc, 'ip')).last_error).toMatch(/^blocked: /);

    upstream.serve('api.ip.sb', /^\/geoip\//, { body: read(IPSB_114), delayMs: 900 });
    upstream.serve('ip-api.com', /^\/json\//, { body: read(IPAPI_8), delayMs: 900 });
    await expectUnavailable(await svc.get('/v2/apis/ip', as('1.0.0.3')), /timed out/);
  });

  it('keeps the last good location, served as STALE, when the answers change shape or are empty', async () => {
    const good = (addr: string) => ({ ...read(IPSB_114), ip: addr });
    upstream.serve('api.ip.sb', '/geoip/9.9.9.9', { body: good('9.9.9.9') });
    upstream.serve('api.ip.sb', '/geoip/9.9.9.10', { body: good('9.9.9.10') });
    await readData<IpData>(await svc.get('/v2/apis/ip', as('9.9.9.9')));
    await readData<IpData>(await svc.get('/v2/apis/ip', as('9.9.9.10')));
    clock.advance(86_400_000 + 1000);

    upstream.serve('api.ip.sb', /^\/geoip\//, { body: { result: { addr: '9.9.9.9' } } });
    upstream.serve('ip-api.com', /^\/json\//, { body: { result: 'moved' } });
    const stale = await svc.get('/v2/apis/ip', as('9.9.9.9'));
    expect(stale.headers.get('x-cache')).toBe('STALE');
    expect((await readData<IpData>(stale)).city).toBe('Nanjing');
    await settle();
    expect((await sourceStatus(svc, 'ip')).last_error).toMatch(/^parse: missing ip \(the looked-up address\)/);

    clock.advance(1000);
    upstream.serve('api.ip.sb', /^\/geoip\//, (req) => ({ body: { ip: req.path.slice('/geoip/'.length) } }));
    const stale2 = await svc.get('/v2/apis/ip', as('9.9.9.10'));
    expect(stale2.headers.get('x-cache')).toBe('STALE');
    expect((await readData<IpData>(stale2)).country).toBe('China');
    await settle();
    expect((await sourceStatus(svc, 'ip')).last_error).toMatch(/^empty: rejected: the lookup located nothing/);
  });
});
