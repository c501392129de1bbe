/** 今日运势: a fortune level with a tip, from the bundled corpus data/corpus/luck.json (written for this project). */
import { escapeMarkdown } from '../src/encoding/escape.ts';
import { defineSource } from '../src/kernel/source.ts';
import { idParam, loadCorpus, pickItem, text } from './_shared/corpus.ts';

/** Fortune levels, best first; `rank` counts up from the worst (1) to the best (7). */
export const LEVELS = ['大吉', '中吉', '小吉', '吉', '末吉', '凶', '大凶'] as const;
const MAX_RANK = LEVELS.length;

export interface LuckEntry {
  luck: (typeof LEVELS)[number];
  tip: string;
}

export const CORPUS = loadCorpus<LuckEntry>('luck', (v) => {
  const r = v as Partial<LuckEntry> | null;
  const tip = text(r?.tip);
  return r && LEVELS.includes(r.luck as LuckEntry['luck']) && tip ? { luck: r.luck as LuckEntry['luck'], tip } : undefined;
});

export interface Luck {
  id: number;
  /** Same as `id` (60s's name). */
  index: number;
  total: number;
  luck: string;
  /** Same as `luck`: the fortune level (60s's name). */
  luck_desc: string;
  /** 1 (大凶) to 7 (大吉). */
  luck_rank: number;
  luck_rank_max: number;
  luck_tip: string;
  /** 0-based position of the tip among the tips of its level. */
  luck_tip_index: number;
}

/** Position of each entry among the entries of the same level. */
const TIP_INDEX: readonly number[] = (() => {
  const seen = new Map<string, number>();
  return CORPUS.map((e) => {
    const n = seen.get(e.luck) ?? 0;
    seen.set(e.luck, n + 1);
    return n;
  });
})();

export default defineSource({
  id: 'luck',
  name: '今日运势',
  description: 'A fortune for today: a level from 大凶 to 大吉 (luck_rank 1–7) with a tip. Random, or a given id (0-based).',
  routes: [{ path: '/luck' }],
  params: { id: idParam('fortune') },
  mode: 'local',
  compute(_ctx, p): Luck {
    const { item, id } = pickItem(CORPUS, p.id, 'fortune');
    return {
      id,
      index: id,
      total: CORPUS.length,
      luck: item.luck,
      luck_desc: item.luck,
      luck_rank: MAX_RANK - LEVELS.indexOf(item.luck),
      luck_rank_max: MAX_RANK,
      luck_tip: item.tip,
      luck_tip_index: TIP_INDEX[id] ?? 0,
    };
  },
  view: {
    title: () => '今日运势',
    text: (d) => `${d.luck}：${d.luck_tip}\n`,
    markdown: (d) => `# 今日运势：${escapeMarkdown(d.luck)}\n\n> ${escapeMarkdown(d.luck_tip)}\n\n运势等级：${d.luck_rank}/${d.luck_rank_max} · 第 ${d.id} 条\n`,
  },
  example: '/v2/apis/luck?encoding=text',
});
