import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mixinKey, mixinKeyOfNav, wbiParams } from '../../sources/_shared/wbi.ts';
import videoSiteRank, { list } from '../../sources/video-site-rank.ts';
import { describeDeclaredList, readFixture } from '../support/declared-list-suite.ts';
import { startService, type TestService } from '../support/service.ts';
import { Upstream, type UpstreamRequest } from '../support/upstream.ts';

/** The worked example of bilibili-API-collect docs/misc/sign/wbi.md: its keys, their mixin key, one signed query. */
const DOC = { img: '7cd084941338484aae1ad9425b84077c', sub: '4932caff0ff746eab6f01bf08b70ac45', mixin: 'ea1db124af3c7062474693fa704f4ff8' };

describeDeclaredList(list);

describe('video-site-rank: the WBI signature', () => {
  it("derives the documented mixin key from the documented keys, and from the nav answer's URLs", () => {
    expect(mixinKey(DOC.img, DOC.sub)).toBe(DOC.mixin);
    expect(mixinKeyOfNav(readFixture('api.bilibili.com/x/web-interface/nav.json'))).toBe(DOC.mixin);
    expect(() => mixinKeyOfNav({ code: 0, data: { isLogin: false } })).toThrow(/missing data\.wbi_img/);
  });

  it('signs the documented example query to its documented w_rid', () => {
    expect(wbiParams({ foo: '114', bar: '514', zab: 1919810 }, DOC.mixin, 1702204169)).toEqual({ foo: '114', bar: '514', zab: '1919810', wts: '1702204169', w_rid: '8f6f2b5b3d485fe1886cec6a0be8c5d4' });
    // Values lose !'()*, spaces are %20 and the hex upper-case in what is signed.
    const odd = wbiParams({ q: "a b!(c)'*五" }, DOC.mixin, 1);
    expect(odd.q).toBe('a bc五');
    expect(odd.w_rid).toBe(createHash('md5').update(`q=a%20bc%E4%BA%94&wts=1${DOC.mixin}`).digest('hex'));
  });

  describe('through the service, against an upstream that checks the signature', () => {
    const upstream = new Upstream();
    let svc: TestService;
    let nav = 0;
    /** The keys the site uses today (the documented example first, then others after a change of day). */
    let today = { img: DOC.img, sub: DOC.sub };
    /** What the site checks, by the documented rule: a fresh wts and w_rid = md5(sorted query without w_rid + mixin key). */
    const validSignature = (req: UpstreamRequest): boolean => {
      const q = new URLSearchParams(req.query);
      const wRid = q.get('w_rid');
      const wts = Number(q.get('wts'));
      q.delete('w_rid');
      const sorted = [...q.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
      return Math.abs(wts - Date.now() / 1000) < 300 && wRid === createHash('md5').update(sorted + mixinKey(today.img, today.sub)).digest('hex');
    };
    beforeAll(async () => {
      await upstream.start();
      upstream.serve('api.bilibili.com', '/x/web-interface/nav', () => {
        nav += 1;
        if (today.img === DOC.img) return upstream.fileReply('api.bilibili.com/x/web-interface/nav.json');
        return { body: { code: -101, message: '账号未登录', ttl: 1, data: { isLogin: false, wbi_img: { img_url: `https://i0.hdslb.com/bfs/wbi/${today.img}.png`, sub_url: `https://i0.hdslb.com/bfs/wbi/${today.sub}.png` } } } };
      });
      upstream.serve('api.bilibili.com', '/x/web-interface/ranking/v2', (req) =>
        validSignature(req) ? upstream.fileReply('api.bilibili.com/x/web-interface/ranking/v2.json') : { body: { code: 0, message: '0', ttl: 1, data: { v_voucher: 'voucher_test' } } },
      );
      svc = await startService({ upstream, sources: [videoSiteRank] });
    });
    afterAll(async () => {
      await svc?.close();
      await upstream.stop();
    });

    it('answers the ranking of signed requests, asking for the keys once for several lists', async () => {
      const all = await svc.get('/v2/apis/video-site-rank');
      expect(all.status).toBe(200);
      expect(((await all.json()) as { data: unknown[] }).data).toHaveLength(8);
      expect((await svc.get('/v2/apis/video-site-rank?partition=188')).status).toBe(200);
      const asked = upstream.hits('api.bilibili.com', '/x/web-interface/ranking/v2');
      expect(asked.map((r) => r.query.get('rid'))).toEqual(['0', '188']);
      expect(asked.map((r) => r.query.get('tid'))).toEqual(['0', '188']);
      for (const r of asked) expect(r.query.get('w_rid')).toMatch(/^[0-9a-f]{32}$/);
      expect(nav).toBe(1);
    });

    it('fetches the keys again after the site refused a request signed with yesterday’s', async () => {
      today = { img: 'a'.repeat(32), sub: '0123456789abcdef0123456789abcdef' };
      const before = nav;
      const refused = await svc.get('/v2/apis/video-site-rank?partition=1');
      expect(refused.status).toBeGreaterThanOrEqual(500);
      expect(nav).toBe(before);
      const next = await svc.get('/v2/apis/video-site-rank?partition=3');
      expect(next.status).toBe(200);
      expect(nav).toBe(before + 1);
    });

    it('records an unsigned or wrongly signed answer (a v_voucher) as blocked', () => {
      expect(() => list.refused?.({ code: 0, data: { v_voucher: 'voucher_x' } }, 200)).not.toThrow();
      expect(list.refused?.({ code: 0, data: { v_voucher: 'voucher_x' } }, 200)).toMatch(/v_voucher/);
    });
  });
});
