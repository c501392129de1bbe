import { expect, it } from 'vitest';
import { list } from '../../sources/hot-game-forum.ts';
import { describeDeclaredList } from '../support/declared-list-suite.ts';

describeDeclaredList(list, (requests) => {
  it('POSTs the form that selects the JSON output', () => {
    const asked = requests().find((r) => r.host === 'ngabbs.com');
    expect(asked?.method).toBe('POST');
    expect(asked?.body.toString()).toBe('__output=14');
    expect(asked?.query.get('__act')).toBe('load_topic_reply_ladder2');
  });
});
