import { describe, expect, it } from 'vitest';
import { CORPUS, LEVELS } from '../../sources/luck.ts';
import { describeBundledCorpus, describeIdContract, getJson, useService } from './_corpus.ts';

describeBundledCorpus('luck', CORPUS, 30, (i: { luck: string; tip: string }) => i.tip);

describe('luck', () => {
  const { svc } = useService();
  describeIdContract({ path: '/v2/apis/luck', what: 'fortune', total: () => CORPUS.length, svc });

  it('covers every level and ranks 大吉 highest', async () => {
    expect(new Set(CORPUS.map((c) => c.luck))).toEqual(new Set(LEVELS));
    const best = CORPUS.findIndex((c) => c.luck === '大吉');
    const worst = CORPUS.findIndex((c) => c.luck === '大凶');
    const a = await getJson<{ luck: string; luck_rank: number; luck_rank_max: number; luck_tip: string }>(svc(), `/v2/apis/luck?id=${best}`);
    expect(a.body.data).toMatchObject({ luck: '大吉', luck_rank: 7, luck_rank_max: 7, luck_tip: CORPUS[best]!.tip });
    const b = await getJson<{ luck_rank: number }>(svc(), `/v2/apis/luck?id=${worst}`);
    expect(b.body.data.luck_rank).toBe(1);
  });

  it('text is "level：tip", markdown names the rank', async () => {
    const t = await svc().get('/v2/apis/luck?id=0&encoding=text');
    expect(t.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await t.text()).toBe(`${CORPUS[0]!.luck}：${CORPUS[0]!.tip}\n`);
    const m = await svc().get('/v2/apis/luck?id=0&encoding=markdown');
    expect(m.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(await m.text()).toMatch(/^# 今日运势：大吉\n[\s\S]*运势等级：7\/7/);
  });
});
