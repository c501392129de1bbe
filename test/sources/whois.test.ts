import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import whois, { ageDesc, type WhoisData } from '../../sources/whois/index.ts';
import { hostOf, normalizeDomain } from '../../sources/whois/domain.ts';
import { isNotFound, parseServerOverride, parseWhoisDate, parseWhoisText, queryWhois, referralOf } from '../../sources/whois/protocol.ts';
import { parseRdap } from '../../sources/whois/rdap.ts';
import { TestClock } from '../support/clock.ts';
import { expectError, expectUnavailable, getEncodings, readData, settle, sourceStatus } from '../support/envelope-assertions.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream, type UpstreamReply } from '../support/upstream.ts';
import { WhoisServer } from '../support/whois-server.ts';

const text = (file: string) => fs.readFileSync(path.join(FIXTURE_DIR, file), 'utf8');
const json = (file: string) => JSON.parse(text(file)) as Record<string, unknown>;
const RDAP_BOOKS = 'rdap.verisign.com/com/v1/domain/lanting-books.com.json';
const at = (iso: string) => Date.parse(iso);

describe('whois domain input', () => {
  it('strips scheme, user info, path, port and trailing dots, and finds the registrable domain', () => {
    expect(hostOf('https://user@WWW.Example.COM:8443/a/b?c#d')).toBe('www.example.com');
    expect(hostOf('example.com.')).toBe('example.com');
    expect(normalizeDomain('https://www.lanting-books.com/path')).toEqual({ host: 'www.lanting-books.com', ascii: 'lanting-books.com', unicode: 'lanting-books.com', suffix: 'com', tld: 'com' });
    expect(normalizeDomain('shop.tea-house.co.uk')).toMatchObject({ ascii: 'tea-house.co.uk', suffix: 'co.uk', tld: 'uk' });
    expect(normalizeDomain('a.b.lanting.com.cn')).toMatchObject({ ascii: 'lanting.com.cn', suffix: 'com.cn' });
    expect(normalizeDomain('www.兰亭.com')).toMatchObject({ host: 'www.xn--2lq10e.com', ascii: 'xn--2lq10e.com', unicode: '兰亭.com' });
    expect(normalizeDomain('例子.公司.cn')).toMatchObject({ ascii: 'xn--fsqu00a.xn--55qx5d.cn', suffix: 'xn--55qx5d.cn', unicode: '例子.公司.cn' });
    expect(normalizeDomain('BÜCHER.de')).toMatchObject({ ascii: 'xn--bcher-kva.de', unicode: 'bücher.de' });
    expect(normalizeDomain('xn--2lq10e.com').unicode).toBe('兰亭.com');
  });

  it('refuses what is not a registrable domain', () => {
    for (const [input, why] of [
      ['', /no host name/],
      ['8.8.8.8', /IP address/],
      ['[2001:db8::1]:43', /IP address/],
      ['com', /top-level domain/],
      ['com.cn', /registry suffix/],
      ['bad_domain!.com', /not a valid domain name/],
      ['-lead.com', /not a valid domain name/],
      ['example.123', /not a valid domain name/],
      [`${'a'.repeat(64)}.com`, /not a valid domain name/],
    ] as const) {
      expect(() => normalizeDomain(input), input).toThrow(expect.objectContaining({ kind: 'bad_input', message: expect.stringMatching(why) }));
    }
  });
});

describe('whois parsers', () => {
  it('reads an RDAP domain object: registrar, registrant (redactions dropped), dates, status, DNSSEC', () => {
    const d = parseRdap(json(RDAP_BOOKS), 'lanting-books.com');
    expect(d).toEqual({
      status: ['client delete prohibited', 'client transfer prohibited'],
      registrar: 'Yunlan Registrar Co., Ltd.',
      registrar_iana_id: '3721',
      registrar_url: null,
      registrant: { name: null, organization: 'Lanting Books Ltd.', email: 'owner@lanting-books.com', country: 'CN' },
      nameservers: ['ns1.yunlan-dns.net', 'ns2.yunlan-dns.net'],
      dnssec: false,
      created_at: at('2016-04-09T07:31:12Z'),
      changed_at: at('2026-03-18T02:05:44Z'),
      expires_at: at('2027-04-09T07:31:12Z'),
      server: 'rdap.verisign.com',
    });
    expect(() => parseRdap({ errorCode: 404, title: 'Not Found' }, 'x.com')).toThrow(expect.objectContaining({ kind: 'not_found' }));
    expect(() => parseRdap({ objectClassName: 'entity', handle: 'x' }, 'x.com')).toThrow(expect.objectContaining({ kind: 'parse' }));
    expect(() => parseRdap('<html>', 'x.com')).toThrow(expect.objectContaining({ kind: 'parse' }));
  });

  it('reads WHOIS text in the gTLD, CNNIC and Nominet dialects', () => {
    const registry = parseWhoisText(text('whois.verisign-grs.com/xn--2lq10e.com.txt'));
    expect(registry).toMatchObject({
      registrar: 'Yunlan Registrar Co., Ltd.',
      registrar_iana_id: '3721',
      registrar_url: 'http://www.yunlan-registrar.net',
      status: ['clientTransferProhibited'],
      nameservers: ['ns1.yunlan-dns.net', 'ns2.yunlan-dns.net'],
      dnssec: true,
      created_at: at('2019-12-02T10:00:00Z'),
      changed_at: at('2026-01-15T08:22:31Z'),
      expires_at: at('2027-12-02T10:00:00Z'),
    });
    const registrar = parseWhoisText(text('whois.yunlan-registrar.net/xn--2lq10e.com.txt'));
    expect(registrar.registrant).toEqual({ name: null, organization: 'Hangzhou Lanting Culture Media Co., Ltd.', email: null, country: 'CN' });
    expect(registrar.created_at).toBe(at('2019-12-02T10:00:00Z'));

    const cn = parseWhoisText(text('whois.cnnic.cn/lanting.cn.txt'), '+08:00');
    expect(cn).toMatchObject({
      registrar: '云岚网络科技有限公司',
      registrant: { name: '杭州兰亭文化传媒有限公司', organization: null, email: 'domain-admin@lanting.cn', country: null },
      status: ['clientDeleteProhibited', 'clientTransferProhibited'],
      nameservers: ['dns1.lanting-dns.cn', 'dns2.lanting-dns.cn'],
      dnssec: false,
      created_at: at('2005-03-16T01:12:45Z'),
      expires_at: at('2027-03-16T01:12:45Z'),
    });

    const uk = parseWhoisText(text('whois.nic.uk/tea-house.co.uk.txt'));
    expect(uk).toMatchObject({
      registrar: 'Fenland Names Ltd t/a Fenland',
      registrar_url: 'https://www.fenland-names.co.uk',
      nameservers: ['ns1.fenland-dns.co.uk', 'ns2.fenland-dns.co.uk'],
      created_at: at('2009-02-03T00:00:00Z'),
      expires_at: at('2027-02-03T00:00:00Z'),
      changed_at: at('2026-01-18T00:00:00Z'),
    });
  });

  it('parses dates, referrals and "not found" answers', () => {
    expect(parseWhoisDate('2027-12-02T10:00:00Z')).toBe(at('2027-12-02T10:00:00Z'));
    expect(parseWhoisDate('2027-12-02T10:00:00.000+0800')).toBe(at('2027-12-02T02:00:00Z'));
    expect(parseWhoisDate('2027/12/02')).toBe(at('2027-12-02T00:00:00Z'));
    expect(parseWhoisDate('2027-12-02 10:00:00', '+08:00')).toBe(at('2027-12-02T02:00:00Z'));
    expect(parseWhoisDate('2027-12-02 10:00:00 UTC', '+08:00')).toBe(at('2027-12-02T10:00:00Z'));
    expect(parseWhoisDate('03-Feb-2009')).toBe(at('2009-02-03T00:00:00Z'));
    expect(parseWhoisDate('before Aug-1996')).toBeNull();
    expect(referralOf(text('whois.iana.org/com.txt'))).toBe('whois.verisign-grs.com');
    expect(referralOf(text('whois.verisign-grs.com/xn--2lq10e.com.txt'))).toBe('whois.yunlan-registrar.net');
    expect(referralOf('ReferralServer: whois://whois.example-rir.net:43\n')).toBe('whois.example-rir.net');
    expect(referralOf('Domain Name: X\n')).toBeNull();
    expect(isNotFound('No match for "NOSUCH-BOOKS.COM".\r\n>>> Last update')).toBe(true);
    expect(isNotFound('No matching record.')).toBe(true);
    expect(isNotFound('This domain name has not been registered.\nStatus: AVAILABLE')).toBe(true);
    expect(isNotFound(text('whois.cnnic.cn/lanting.cn.txt'))).toBe(false);
  });

  it('reads the server override setting', () => {
    expect(parseServerOverride(undefined)).toBeUndefined();
    expect(parseServerOverride('127.0.0.1:4343')?.('whois.iana.org')).toEqual({ host: '127.0.0.1', port: 4343 });
    const map = parseServerOverride('whois.iana.org=127.0.0.1:1001, *=[::1]:1002');
    expect(map?.('WHOIS.IANA.ORG')).toEqual({ host: '127.0.0.1', port: 1001 });
    expect(map?.('whois.nic.uk')).toEqual({ host: '::1', port: 1002 });
    expect(() => parseServerOverride('nonsense')).toThrow(expect.objectContaining({ kind: 'config' }));
    expect(ageDesc(800)).toBe('2 年 70 天');
    expect(ageDesc(12)).toBe('12 天');
  });
});

describe('whois protocol client', () => {
  const server = new WhoisServer('whois.test');
  beforeAll(async () => {
    await server.start();
  });
  afterAll(async () => {
    await server.stop();
  });
  afterEach(() => server.reset());
  const opts = () => ({ timeoutMs: 500, maxBytes: 1024, override: parseServerOverride(`127.0.0.1:${server.port}`) });

  it('sends the query with CRLF and reads until the server closes', async () => {
    server.use((q) => `Domain Name: ${q.toUpperCase()}\r\n`);
    expect(await queryWhois('whois.test', 'lanting.test', opts())).toBe('Domain Name: LANTING.TEST\r\n');
    expect(server.queries).toEqual(['lanting.test']);
  });

  it('cuts the answer at the size cap and gives up after the timeout', async () => {
    server.use(() => `${'x'.repeat(5000)}`);
    expect(await queryWhois('whois.test', 'big.test', opts())).toHaveLength(1024);
    server.use(() => ({ body: 'late', delayMs: 2000 }));
    const started = Date.now();
    await expect(queryWhois('whois.test', 'slow.test', opts())).rejects.toThrow(/did not answer within 500 ms|went silent/);
    expect(Date.now() - started).toBeLessThan(1500);
    server.use(() => ({ body: '', reset: true }));
    await expect(queryWhois('whois.test', 'reset.test', opts())).rejects.toThrow(expect.objectContaining({ kind: 'transient' }));
  });
});

describe('whois through the server', () => {
  const upstream = new Upstream();
  const clock = new TestClock();
  const servers = ['whois.iana.org', 'whois.verisign-grs.com', 'whois.yunlan-registrar.net', 'whois.cnnic.cn', 'whois.nic.uk'].map((n) => new WhoisServer(n));
  const [iana, verisign, , cnnic] = servers as [WhoisServer, WhoisServer, WhoisServer, WhoisServer, WhoisServer];
  let svc: TestService;
  const whoisQueries = () => servers.flatMap((s) => s.queries.map((q) => `${s.name} ${q}`));

  /** rdap.org: redirect .com to Verisign's RDAP server; no RDAP for .cn; a failing bootstrap for .uk. */
  function rdapBootstrap() {
    upstream.serve('rdap.org', /^\/domain\//, (req): UpstreamReply => {
      const name = req.path.slice('/domain/'.length);
      if (name.endsWith('.com')) return { status: 302, headers: { location: `https://rdap.verisign.com/com/v1/domain/${name}` } };
      if (name.endsWith('.cn')) return { status: 404, headers: { 'content-type': 'application/rdap+json' }, body: JSON.stringify({ errorCode: 404, title: 'No RDAP service for this TLD' }) };
      return { status: 503, body: 'bootstrap unavailable' };
    });
  }

  beforeAll(async () => {
    await upstream.start();
    await Promise.all(servers.map((s) => s.start()));
    svc = await startService({ upstream, now: clock.now, sources: [whois], env: { SOURCE_WHOIS_SERVER_OVERRIDE: servers.map((s) => s.override).join(','), HTTP_TIMEOUT_MS: '800' } });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
    await Promise.all(servers.map((s) => s.stop()));
  });
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
    upstream.reset();
    for (const s of servers) s.reset();
  });

  it('answers from RDAP alone when it is complete, following the bootstrap redirect, in every encoding', async () => {
    rdapBootstrap();
    const q = '/v2/apis/whois?domain=lanting-books.com';
    const d = await readData<WhoisData>(await svc.get(q));
    expect(d).toMatchObject({
      domain: 'lanting-books.com',
      unicode_domain: 'lanting-books.com',
      registrar: 'Yunlan Registrar Co., Ltd.',
      registrar_iana_id: '3721',
      nameservers: ['ns1.yunlan-dns.net', 'ns2.yunlan-dns.net'],
      dnssec: false,
      created: '2016/04/09 15:31:12',
      created_at: at('2016-04-09T07:31:12Z'),
      expires: '2027/04/09 15:31:12',
      changed_at: at('2026-03-18T02:05:44Z'),
      // 60s's names: updated is the registration's last change, duration the time since registration.
      updated: '2026/03/18 10:05:44',
      updated_at: at('2026-03-18T02:05:44Z'),
      duration_desc: '10 年 227 天',
      age_days: 3877,
      age_desc: '10 年 227 天',
      registrant: { organization: 'Lanting Books Ltd.', country: 'CN' },
      source: 'rdap',
      rdap_server: 'rdap.verisign.com',
      whois_server: null,
    });
    expect(upstream.hits('rdap.org')[0]!.headers.accept).toMatch(/application\/rdap\+json/);
    expect(upstream.hits('rdap.verisign.com').map((r) => r.path)).toEqual(['/com/v1/domain/lanting-books.com']);
    expect(whoisQueries()).toEqual([]);

    const out = await getEncodings(svc, q);
    expect(out.text).toContain('域名: lanting-books.com\n注册商: Yunlan Registrar Co., Ltd.\n注册时间: 2016/04/09 15:31:12\n到期时间: 2027/04/09 15:31:12');
    expect(out.text).toContain('DNS 服务器: ns1.yunlan-dns.net, ns2.yunlan-dns.net');
    expect(out.markdown).toContain('# WHOIS：lanting-books.com');
    expect(out.markdown).toContain('| 注册商 | Yunlan Registrar Co., Ltd. |');
    expect(out.markdown).toContain('## DNS 服务器\n\n- ns1.yunlan-dns.net');
    expect(out.html).toContain('<th>DNSSEC</th><td>未签名</td>');
    expect(upstream.hits('rdap.org')).toHaveLength(1);
  });

  it('fills gaps of RDAP from WHOIS (IANA referral, registry, registrar) for an IDN given as a URL', async () => {
    rdapBootstrap();
    const d = await readData<WhoisData>(await svc.get(`/v2/apis/whois?domain=${encodeURIComponent('https://www.兰亭.com:8443/about?x=1')}`));
    expect(upstream.hits('rdap.org').map((r) => r.path)).toEqual(['/domain/xn--2lq10e.com']);
    expect(whoisQueries()).toEqual(['whois.iana.org com', 'whois.verisign-grs.com xn--2lq10e.com', 'whois.yunlan-registrar.net xn--2lq10e.com']);
    expect(d).toMatchObject({
      domain: 'xn--2lq10e.com',
      unicode_domain: '兰亭.com',
      punycode_domain: 'xn--2lq10e.com',
      query: 'www.xn--2lq10e.com',
      status: ['active'],
      dnssec: true,
      registrar: 'Yunlan Registrar Co., Ltd.',
      nameservers: ['ns1.yunlan-dns.net', 'ns2.yunlan-dns.net'],
      created_at: at('2019-12-02T10:00:00Z'),
      expires_at: at('2027-12-02T10:00:00Z'),
      registrant: { name: '', organization: 'Hangzhou Lanting Culture Media Co., Ltd.', email: '', country: 'CN' },
      source: 'rdap+whois',
      whois_server: 'whois.yunlan-registrar.net',
    });
    const txt = await (await svc.get(`/v2/apis/whois?domain=${encodeURIComponent('https://www.兰亭.com:8443/about?x=1')}&encoding=text`)).text();
    expect(txt).toMatch(/^域名: 兰亭\.com \(xn--2lq10e\.com\)\n/);
  });

  it('uses WHOIS alone where there is no RDAP (.cn, local-time dates) or RDAP fails (.co.uk)', async () => {
    rdapBootstrap();
    const cn = await readData<WhoisData>(await svc.get('/v2/apis/whois?domain=lanting.cn'));
    expect(cn).toMatchObject({ source: 'whois', whois_server: 'whois.cnnic.cn', registrar: '云岚网络科技有限公司', created: '2005/03/16 09:12:45', created_at: at('2005-03-16T01:12:45Z'), rdap_server: null });
    const uk = await readData<WhoisData>(await svc.get('/v2/apis/whois?domain=http://shop.tea-house.co.uk/'));
    expect(uk).toMatchObject({ domain: 'tea-house.co.uk', source: 'whois', whois_server: 'whois.nic.uk', registrar: 'Fenland Names Ltd t/a Fenland', expires: '2027/02/03 08:00:00' });
    // Grouped by server: IANA was asked about each TLD once, then each registry about its domain.
    expect(whoisQueries()).toEqual(['whois.iana.org cn', 'whois.iana.org uk', 'whois.cnnic.cn lanting.cn', 'whois.nic.uk tea-house.co.uk']);
  });

  it('answers 404 when the registry has no such domain, and 400 for bad input', async () => {
    rdapBootstrap();
    upstream.serve('rdap.verisign.com', '/com/v1/domain/nosuch-books.com', { status: 404, headers: { 'content-type': 'application/rdap+json' }, body: JSON.stringify({ errorCode: 404, title: 'Not Found' }) });
    await expectError(await svc.get('/v2/apis/whois?domain=nosuch-books.com'), 404, /no registration was found for nosuch-books\.com/);
    cnnic.use(() => 'No matching record.\r\n');
    await expectError(await svc.get('/v2/apis/whois?domain=nosuch.cn'), 404, /no registration was found for nosuch\.cn/);
    await expectError(await svc.get('/v2/apis/whois'), 400, /"domain"/);
    await expectError(await svc.get('/v2/apis/whois?domain=8.8.8.8'), 400, /IP address/);
    await expectError(await svc.get('/v2/apis/whois?domain=com.cn'), 400, /registry suffix/);
    await expectError(await svc.get('/v2/apis/whois?domain=bad_name!.com'), 400, /not a valid domain name/);
    // Every refusal names the parameter and says what is accepted (issue 13: whois?domain=x did not).
    for (const domain of ['x', '8.8.8.8', 'com.cn', 'bad_name!.com', '%20']) {
      await expectError(await svc.get(`/v2/apis/whois?domain=${domain}`), 400, /^(Invalid parameter "domain": .*such as example\.|Missing required parameter "domain")/);
    }
    expect((await sourceStatus(svc, 'whois')).fail_count).toBe(0);
  });

  it('answers 503 with Retry-After when neither protocol answers and nothing is cached', async () => {
    verisign.use(() => ({ body: '', reset: true }));
    upstream.serve('rdap.org', /^\/domain\//, { status: 500, body: 'internal error' });
    await expectUnavailable(await svc.get('/v2/apis/whois?domain=cold-500.com'), /域名 WHOIS.*HTTP 500/);

    clock.advance(1000);
    upstream.serve('rdap.org', /^\/domain\//, { status: 403, headers: { 'content-type': 'text/html' }, body: '<html><title>Access denied</title></html>' });
    await expectUnavailable(await svc.get('/v2/apis/whois?domain=cold-403.com'), /HTTP 403/);
    expect((await sourceStatus(svc, 'whois')).last_error).toMatch(/^blocked: /);

    upstream.serve('rdap.org', /^\/domain\//, { status: 302, headers: { location: 'https://rdap.verisign.com/com/v1/domain/lanting-books.com' }, delayMs: 1200 });
    await expectUnavailable(await svc.get('/v2/apis/whois?domain=cold-slow.com'), /timed out/);
    expect(iana.queries.length + verisign.queries.length).toBeGreaterThan(0);
  });

  it('keeps the last good record, served as STALE, when answers change shape or hold nothing', async () => {
    rdapBootstrap();
    await readData<WhoisData>(await svc.get('/v2/apis/whois?domain=lanting-books.com&encoding=json'));
    await readData<WhoisData>(await svc.get('/v2/apis/whois?domain=www.lanting-books.com'));
    clock.advance(3600_000 + 1000);

    verisign.use(() => ({ body: '', reset: true }));
    upstream.serve('rdap.verisign.com', /^\/com\/v1\/domain\//, { body: { objectClassName: 'domain_v2', name: 'LANTING-BOOKS.COM' } });
    const stale = await svc.get('/v2/apis/whois?domain=lanting-books.com');
    expect(stale.headers.get('x-cache')).toBe('STALE');
    expect((await readData<WhoisData>(stale)).registrar).toBe('Yunlan Registrar Co., Ltd.');
    await settle();
    expect((await sourceStatus(svc, 'whois')).last_error).toMatch(/^parse: RDAP answer is not a domain object/);

    clock.advance(1000);
    upstream.serve('rdap.verisign.com', /^\/com\/v1\/domain\//, { body: { objectClassName: 'domain', ldhName: 'LANTING-BOOKS.COM' } });
    verisign.use(() => 'Domain Name: LANTING-BOOKS.COM\r\n');
    const stale2 = await svc.get('/v2/apis/whois?domain=www.lanting-books.com');
    expect(stale2.headers.get('x-cache')).toBe('STALE');
    expect((await readData<WhoisData>(stale2)).nameservers).toHaveLength(2);
    await settle();
    expect((await sourceStatus(svc, 'whois')).last_error).toMatch(/^empty: rejected: the answer holds no registration data/);
  });
});

describe('whois behind the mirror without a WHOIS override', () => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream, sources: [whois] });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it('answers from RDAP and never opens port 43 to the real servers', async () => {
    const d = await readData<WhoisData>(await svc.get('/v2/apis/whois?domain=example.com'));
    expect(d).toMatchObject({ domain: 'example.com', registrar: 'RESERVED-Internet Assigned Numbers Authority', dnssec: true, source: 'rdap', created: '1995/08/14 12:00:00' });
    upstream.serve('rdap.org', '/domain/lanting.cn', { status: 404, body: { errorCode: 404 } });
    await expectUnavailable(await svc.get('/v2/apis/whois?domain=lanting.cn'), /not used behind SOURCES_UPSTREAM_MIRROR/);
    expect(upstream.unmatched).toEqual([]);
  });
});
