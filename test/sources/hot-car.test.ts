import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import source, { parse } from '../../sources/hot-car.ts';
import { nextData } from '../../sources/_shared/embedded-json.ts';
import { describeHotListEndpoint, expectRejectsBroken } from '../support/hot-list-endpoint.ts';
import { FIXTURE_DIR } from '../support/upstream.ts';

const HOST = 'www.dongchedi.com';
const PATH = '/news';
const html = () => fs.readFileSync(path.join(FIXTURE_DIR, HOST, `${PATH}.html`), 'utf8');
const now = new Date('2026-11-21T02:00:00Z');
const validate = source.mode === 'local' ? () => 'local' : source.validate;
const search = (k: string) => `https://www.dongchedi.com/search?keyword=${encodeURIComponent(k)}`;

function nextPage(pageProps: unknown): string {
  return `<!DOCTYPE html><html><body><div id="__next"></div><script id="__NEXT_DATA__" type="application/json">${JSON.stringify({ props: { pageProps }, page: '/news' })}</script></body></html>`;
}

const CAPTCHA = '<!DOCTYPE html><html><head><title>验证码中间页</title></head><body><div id="captcha_container"></div><script src="https://verify.zijieapi.com/captcha.js"></script></body></html>';

describe('hot-car parse', () => {
  it('reads the hot searches from __NEXT_DATA__', () => {
    const data = parse(html());
    expect(data.length).toBe(9);
    expect(data[0]).toEqual({
      rank: 1,
      title: '小米YU7',
      link: search('小米YU7'),
      url: search('小米YU7'),
      hot_value: 1234567,
      hot_value_desc: '123.5万',
      score: 1234567,
      score_desc: '123.5万',
      is_hot: true,
      description: '新车上市',
      cover: 'https://p3-dcd.byteimg.com/img/motor-mis-img/serial0~tplv-resize:80:0.png',
      id: '7300000000000000000',
    });
    expect(data[2]).toMatchObject({ title: '问界M8', is_hot: false });
    expect(data[3]?.cover).toBeUndefined();
    expect(data[8]).toMatchObject({ hot_value: 8765, hot_value_desc: '8765' });
    for (const i of data) expect(i.url).toBe(i.link);
  });

  it('tells a verification page from a changed page', () => {
    expect(() => nextData(CAPTCHA, HOST)).toThrow(expect.objectContaining({ kind: 'blocked' }));
    expect(() => nextData('<html><body>new design</body></html>', HOST)).toThrow(expect.objectContaining({ kind: 'parse' }));
    expect(() => nextData('<script id="__NEXT_DATA__">{oops</script>', HOST)).toThrow(/not valid JSON/);
  });

  it('rejects broken copies', () => {
    expectRejectsBroken(validate, parse(html()));
    expect(validate(parse(nextPage({ hotSearchList: [] })))).toMatch(/got 0/);
    expect(validate(parse(nextPage({ hotSearchList: [{ score: 1 }, { score: 2 }] })))).toMatch(/got 0/);
    expect(() => parse(nextPage({ feedList: [] }))).toThrow(/^missing props\.pageProps\.hotSearchList \(an array\): props\.pageProps is an object with keys feedList$/);
  });
});

describeHotListEndpoint({
  sourceId: 'hot-car',
  path: '/v2/apis/hot-car',
  ttlSec: 600,
  serveGood: () => {
    /* served from test/fixtures/upstream/www.dongchedi.com */
  },
  upstreams: [{ host: HOST, path: PATH }],
  blocked: { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: CAPTCHA },
  changedShape: { headers: { 'content-type': 'text/html; charset=utf-8' }, body: nextPage({ hotSearch: { list: [] } }) },
  emptyList: { headers: { 'content-type': 'text/html; charset=utf-8' }, body: nextPage({ hotSearchList: [] }) },
  expected: { total: 9, first: { title: '小米YU7', link: search('小米YU7') }, firstHot: '123.5万' },
});
