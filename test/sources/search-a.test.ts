import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import source, { extractSData, parseBoard, parseForum } from '../../sources/search-a.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { describeHotListEndpoint, expectRejectsBroken, type Envelope } from '../support/hot-list-endpoint.ts';
import { serviceForSuite } from '../support/suite-service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';

const BOARD = { host: 'top.baidu.com', path: '/board' };
const FORUM = { host: 'tieba.baidu.com', path: '/hottopic/browse/topicList' };
const page = (tab: string) => fs.readFileSync(path.join(FIXTURE_DIR, BOARD.host, `board-${tab}.html`), 'utf8');
const forum = () => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, FORUM.host, `${FORUM.path}.json`), 'utf8')) as { data: { bang_topic: { topic_list: Record<string, unknown>[] } } };
const now = new Date('2026-11-21T02:00:00Z');
const validate = source.mode === 'local' ? () => 'local' : source.validate;
const href = (u: string) => new URL(u).toString();

/** The board page for the `tab` the request asks for, as top.baidu.com serves it. */
function serveBoards(u: Upstream): void {
  u.serve(BOARD.host, BOARD.path, (req) => {
    const tab = req.query.get('tab') ?? '';
    if (!['realtime', 'teleplay'].includes(tab)) return { status: 404, body: 'no such tab' };
    return { headers: { 'content-type': 'text/html; charset=utf-8' }, body: page(tab) };
  });
}

function sDataPage(content: unknown[]): string {
  return `<html><body><!--s-data:${JSON.stringify({ data: { cards: [{ component: 'hotList', content }] } })}--></body></html>`;
}

const CHALLENGE = { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<html><head><title>百度安全验证</title></head><body><a href="https://wappass.baidu.com/static/captcha">请完成下方验证后继续操作</a></body></html>' };

describe('search-a parse', () => {
  it('turns the invalid `\\-` escapes of the s-data comment into dashes', () => {
    const state = extractSData('<!--s-data:{"a":"2026\\-11\\-21","b":"C:\\\\-x"}-->');
    expect(state).toEqual({ a: '2026-11-21', b: 'C:\\-x' });
    expect(() => extractSData('<html>no state</html>')).toThrow(expect.objectContaining({ kind: 'parse' }));
    expect(() => extractSData(CHALLENGE.body)).toThrow(expect.objectContaining({ kind: 'blocked' }));
    expect(() => extractSData('<!--s-data:{broken-->')).toThrow(/not valid JSON/);
  });

  it('reads the realtime board without the pinned entry', () => {
    const data = parseBoard(page('realtime'), 'hot');
    expect(data.length).toBe(10);
    // Every item has an id: the search word on the boards, the topic id on the forum.
    expect(data[0]).toEqual({
      rank: 1,
      id: '全国多地迎来降雪降温',
      title: '全国多地迎来降雪降温',
      link: href('https://www.baidu.com/s?wd=全国多地迎来降雪降温&sa=fyb_news&rsv_dl=fyb_news'),
      url: href('https://www.baidu.com/s?wd=全国多地迎来降雪降温&sa=fyb_news&rsv_dl=fyb_news'),
      hot_value: 7904827,
      hot_value_desc: '790.5万',
      score: '7904827',
      score_desc: '790.5万',
      desc: '冷空气南下，多地气温下降。',
      cover: 'https://fyb-2.cdn.bcebos.com/hotboard_image/img0',
      type: '3',
      type_desc: '热',
      type_icon: 'https://search-operate.cdn.bcebos.com/tag3.png',
    });
    expect(data[1]).toMatchObject({ type: '1', type_desc: '新' });
    expect(data[2]).toMatchObject({ type: '0', type_desc: null, type_icon: null, desc: '2026-11-21 发布的新数据' });
    expect(data.find((i) => i.title === '置顶话题')).toBeUndefined();
  });

  it('reads the teleplay board with genre and cast lines', () => {
    const data = parseBoard(page('teleplay'), 'teleplay');
    expect(data.length).toBe(8);
    expect(data[0]).toEqual({
      rank: 1,
      id: '长河之上',
      title: '长河之上',
      link: href('https://www.baidu.com/s?wd=长河之上&sa=fyb_teleplay'),
      url: href('https://www.baidu.com/s?wd=长河之上&sa=fyb_teleplay'),
      hot_value: 3512345,
      hot_value_desc: '351.2万',
      score: '3512345',
      score_desc: '351.2万',
      desc: '家族三代人的奋斗故事。',
      cover: 'https://fyb-pc-static.cdn.bcebos.com/teleplay/poster0.jpg',
      info: ['类型：剧情 / 年代', '演员：演员甲 / 演员乙'],
    });
    expect(data[0]?.type).toBeUndefined();
  });

  it('reads the forum topics with discussion counts and absolute https links', () => {
    const data = parseForum(forum());
    expect(data.length).toBe(8);
    expect(data[0]).toEqual({
      rank: 1,
      id: '8800000',
      title: '年度游戏大盘点',
      link: href('https://tieba.baidu.com/hottopic/browse/hottopic?topic_id=8800000&topic_name=年度游戏大盘点'),
      url: href('https://tieba.baidu.com/hottopic/browse/hottopic?topic_id=8800000&topic_name=年度游戏大盘点'),
      hot_value: 1834567,
      hot_value_desc: '183.5万',
      score: 1834567,
      score_desc: '183.5万',
      desc: '盘点今年最值得玩的游戏',
      abstract: '今年的游戏你最喜欢哪一款？',
      cover: 'https://tiebapic.baidu.com/forum/pic/item/topic0.jpg',
      avatar: 'https://tiebapic.baidu.com/forum/pic/item/avatar0.jpg',
      created: '2025-11-19 05:06:40',
      created_at: 1763500000000,
    });
    // No topic picture: the avatar stands in.
    expect(data[2]?.cover).toBe('https://tiebapic.baidu.com/forum/pic/item/avatar2.jpg');
  });

  it('rejects broken copies and refusals', () => {
    for (const data of [parseBoard(page('realtime'), 'hot'), parseBoard(page('teleplay'), 'teleplay'), parseForum(forum())]) expectRejectsBroken(validate, data);
    expect(validate(parseBoard(sDataPage([]), 'hot'))).toMatch(/got 0/);
    expect(validate(parseBoard(sDataPage([{ desc: 'no word' }, { desc: 'no word' }]), 'hot'))).toMatch(/got 0/);
    expect(() => parseBoard('<!--s-data:{"data":{}}-->', 'hot')).toThrow(/^missing data\.cards\[0\]\.content \(an array\): data is an empty object$/);
    const untitled = forum();
    for (const t of untitled.data.bang_topic.topic_list) delete t.topic_name;
    expect(validate(parseForum(untitled))).toMatch(/at least 5/);
    expect(() => parseForum({ errno: 0, data: {} })).toThrow(/^missing data\.bang_topic\.topic_list \(an array\): data is an empty object$/);
    expect(() => parseForum({ errno: 110001, errmsg: 'need login' })).toThrow(expect.objectContaining({ kind: 'blocked' }));
    expect(() => parseForum('x')).toThrow(SourceError);
  });
});

describeHotListEndpoint({
  sourceId: 'search-a',
  path: '/v2/apis/search-a/hot',
  ttlSec: 600,
  serveGood: serveBoards,
  upstreams: [BOARD],
  blocked: CHALLENGE,
  changedShape: { headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<html><body><div id="app"></div><script>window.__INITIAL_STATE__={}</script></body></html>' },
  emptyList: { headers: { 'content-type': 'text/html; charset=utf-8' }, body: sDataPage([]) },
  expected: { total: 10, first: { title: '全国多地迎来降雪降温', link: href('https://www.baidu.com/s?wd=全国多地迎来降雪降温&sa=fyb_news&rsv_dl=fyb_news') }, firstHot: '790.5万', query: { tab: 'realtime' } },
});

describeHotListEndpoint({
  sourceId: 'search-a',
  path: '/v2/apis/search-a/teleplay',
  ttlSec: 600,
  serveGood: serveBoards,
  upstreams: [BOARD],
  blocked: CHALLENGE,
  changedShape: { headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<!--s-data:{"data":{"list":[]}}-->' },
  emptyList: { headers: { 'content-type': 'text/html; charset=utf-8' }, body: sDataPage([]) },
  expected: { total: 8, first: { title: '长河之上', link: href('https://www.baidu.com/s?wd=长河之上&sa=fyb_teleplay') }, firstHot: '351.2万', query: { tab: 'teleplay' } },
});

describeHotListEndpoint({
  sourceId: 'search-a',
  path: '/v2/apis/search-a/forum',
  ttlSec: 600,
  serveGood: () => {
    /* served from test/fixtures/upstream/tieba.baidu.com */
  },
  upstreams: [FORUM],
  blocked: CHALLENGE,
  changedShape: { body: { errno: 0, errmsg: 'success', data: { topics: [] } } },
  emptyList: { body: { errno: 0, errmsg: 'success', data: { bang_topic: { module_title: '贴吧热议榜', topic_list: [] } } } },
  expected: { total: 8, first: { title: '年度游戏大盘点', link: href('https://tieba.baidu.com/hottopic/browse/hottopic?topic_id=8800000&topic_name=年度游戏大盘点') }, firstHot: '183.5万 讨论' },
});

describe('search-a routes', () => {
  const { svc, upstream } = serviceForSuite();
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
    upstream.reset();
  });

  it('fixes the board by route: a `board` query parameter changes nothing', async () => {
    serveBoards(upstream);
    const res = await svc().get('/v2/apis/search-a/teleplay?board=forum');
    expect(res.status).toBe(200);
    const body = (await res.json()) as Envelope<{ title: string; info?: string[] }[]>;
    expect(body.data[0]?.title).toBe('长河之上');
    expect(body.data[0]?.info).toEqual(['类型：剧情 / 年代', '演员：演员甲 / 演员乙']);
    expect(upstream.hits(FORUM.host)).toHaveLength(0);
  });

  it('caches each board under its own key, with its own title', async () => {
    serveBoards(upstream);
    const hot = await (await svc().get('/v2/apis/search-a/hot?encoding=text')).text();
    const forumText = await (await svc().get('/v2/apis/search-a/forum?encoding=text')).text();
    expect(hot).toMatch(/^百度实时热搜\n/);
    expect(forumText).toMatch(/^百度贴吧热议\n/);
    expect(forumText).toContain('   盘点今年最值得玩的游戏');
    const md = await (await svc().get('/v2/apis/search-a/teleplay?encoding=markdown')).text();
    expect(md).toMatch(/^# 百度电视剧榜/);
    expect(md).toContain('类型：剧情 / 年代');
  });

  it('lists three catalogue entries without the fixed parameter', async () => {
    const body = (await (await svc().get('/v2/apis')).json()) as Envelope<{ endpoints: { path: string; id: string; params: { name: string }[] }[] }>;
    const mine = body.data.endpoints.filter((e) => e.id === 'search-a');
    expect(mine.map((e) => e.path)).toEqual(['/v2/apis/search-a/hot', '/v2/apis/search-a/teleplay', '/v2/apis/search-a/forum']);
    for (const e of mine) expect(e.params.map((p) => p.name)).not.toContain('board');
  });
});
