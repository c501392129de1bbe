import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { list, signed } from '../../sources/hot-it-community.ts';
import { describeDeclaredList } from '../support/declared-list-suite.ts';

const hex = (s: string) => createHash('md5').update(s).digest('hex');

// The signature as src/utils/getToken/51cto.ts of imsyy/DailyHotApi describes it, written out for one request.
it('hot-it-community signs the request with the token: md5(md5(path) + md5(sorted names + md5(token) + timestamp))', () => {
  const req = signed({ url: 'https://api-media.51cto.com/index/index/recommend', searchParams: { page: 1, page_size: 50, limit_time: 0, name_en: '' } }, 'tok', 1795226400000);
  const inner = hex(`limit_time,name_en,page,page_size,timestamp,token${hex('tok')}1795226400000`);
  expect(req.searchParams).toEqual({ page: 1, page_size: 50, limit_time: 0, name_en: '', timestamp: 1795226400000, token: 'tok', sign: hex(hex('index/index/recommend') + inner) });
});

describeDeclaredList(list, (requests) => {
  it('fetches the token first, then sends it with a signature that matches it and the timestamp', () => {
    const all = requests().filter((r) => r.host === 'api-media.51cto.com');
    expect(all.map((r) => r.path)).toEqual(['/api/token-get', '/index/index/recommend']);
    const q = all[1]!.query;
    const ts = q.get('timestamp')!;
    expect(ts).toMatch(/^\d{13}$/);
    const inner = hex(`limit_time,name_en,page,page_size,timestamp,token${hex(q.get('token')!)}${ts}`);
    expect(q.get('sign')).toBe(hex(hex('index/index/recommend') + inner));
  });
});
