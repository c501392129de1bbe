import { describe, expect, it } from 'vitest';
import { parseDeclared } from '../../sources/_shared/declared-list.ts';
import { list } from '../../sources/hot-short-video-b.ts';
import { describeDeclaredList, readFixture } from '../support/declared-list-suite.ts';

const page = () => readFixture('www.kuaishou.com/index.html') as string;

describeDeclaredList(list, (requests) => {
  it('asks the home page with isHome=1 for HTML', () => {
    const asked = requests().find((r) => r.host === 'www.kuaishou.com');
    expect(asked?.query.get('isHome')).toBe('1');
    expect(asked?.headers.accept).toMatch(/text\/html/);
  });
});

describe('hot-short-video-b page state', () => {
  it('leaves out the pinned entry, decodes covers and links an entry without a video to its search', () => {
    const items = parseDeclared(list, page());
    expect(items.map((i) => i.title)).not.toContain('寒潮来袭多地迎来降雪');
    expect(items[0]?.cover).toMatch(/^https:\/\/p2\.a\.yximgs\.com\/upic\/.*\?tag=1-/);
    expect(items.find((i) => i.title === '东北雪乡游客爆满')?.link).toBe('https://www.kuaishou.com/search/video?searchKey=' + encodeURIComponent('东北雪乡游客爆满'));
  });

  it('finds the list by its generated id when ROOT_QUERY has no reference (the variant DailyHotApi reads)', () => {
    const html = page().replace(/"ROOT_QUERY":\{.*?"typename":"VisionHotRankResult"\}\},/, '');
    expect(html).not.toContain('"ROOT_QUERY"');
    expect(parseDeclared(list, html)).toHaveLength(8);
  });

  it('names the script assignment, the reference or the path that is missing', () => {
    expect(() => parseDeclared(list, '<html><script>window.__INITIAL_STATE__={}</script></html>')).toThrow('www.kuaishou.com page has no script assigning JSON to window.__APOLLO_STATE__');
    expect(() => parseDeclared(list, '<script>window.__APOLLO_STATE__={"defaultClient":{"ROOT_QUERY":{}}};</script>')).toThrow('missing defaultClient.ROOT_QUERY["visionHotRank({"page":"home"})"]');
    expect(() => parseDeclared(list, page().replace('"items":[', '"entries":['))).toThrow(/^missing items \(an array\)/);
    expect(() => parseDeclared(list, '<html><title>安全验证</title></html>')).toThrow(/verification or login page/);
  });
});
