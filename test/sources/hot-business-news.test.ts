import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDeclared } from '../../sources/_shared/declared-list.ts';
import { list } from '../../sources/hot-business-news.ts';
import { describeDeclaredList, readFixture } from '../support/declared-list-suite.ts';
import type { Envelope } from '../support/hot-list-endpoint.ts';
import { startService, type TestService } from '../support/service.ts';
import { Upstream } from '../support/upstream.ts';

const VIDEO = 'gateway.36kr.com/api/mis/nav/home/nav/rank/video.json';

describeDeclaredList(list, (requests) => {
  it('POSTs the body the ranking API documents', () => {
    const asked = requests().find((r) => r.host === 'gateway.36kr.com');
    expect(asked?.method).toBe('POST');
    expect(JSON.parse(asked!.body.toString())).toMatchObject({ partner_id: 'wap', param: { siteId: 1, platformId: 2 } });
  });
});

describe('hot-business-news rankings (type)', () => {
  it('reads the video ranking from data.videoList', () => {
    const items = parseDeclared(list, readFixture(VIDEO), 'video');
    expect(items).toHaveLength(6);
    expect(items[0]).toMatchObject({ rank: 1, title: '一分钟看懂：新能源车企的价格战', link: 'https://www.36kr.com/p/3500000000100000', hot_value: 900, author: '36氪视频' });
  });

  it('names the path of the asked ranking when it is missing', () => {
    expect(() => parseDeclared(list, readFixture(VIDEO), 'comment')).toThrow(/^missing data\.remarkList \(an array\)/);
  });

  describe('through the service', () => {
    const upstream = new Upstream();
    let svc: TestService;
    beforeAll(async () => {
      await upstream.start();
      upstream.serveFile('gateway.36kr.com', '/api/mis/nav/home/nav/rank/video', VIDEO);
      svc = await startService({ upstream });
    });
    afterAll(async () => {
      await svc?.close();
      await upstream.stop();
    });

    it('answers ?type=video from /rank/video, and refuses a ranking it does not know', async () => {
      const res = await svc.get('/v2/apis/hot-business-news?type=video');
      const body = (await res.json()) as Envelope<{ title: string }[]>;
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(body.data[0]?.title).toBe('一分钟看懂：新能源车企的价格战');
      expect(upstream.requests.filter((r) => r.path === '/api/mis/nav/home/nav/rank/video')).toHaveLength(1);
      expect((await svc.get('/v2/apis/hot-business-news?type=weekly')).status).toBe(400);
    });
  });
});
