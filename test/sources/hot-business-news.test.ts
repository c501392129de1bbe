import { expect, it } from 'vitest';
import { list } from '../../sources/hot-business-news.ts';
import { describeDeclaredList } from '../support/declared-list-suite.ts';

describeDeclaredList(list, (requests) => {
  it('POSTs the body the ranking API documents', () => {
    const asked = requests().find((r) => r.host === 'gateway.36kr.com');
    expect(asked?.method).toBe('POST');
    expect(JSON.parse(asked!.body.toString())).toMatchObject({ partner_id: 'wap', param: { siteId: 1, platformId: 2 } });
  });
});
