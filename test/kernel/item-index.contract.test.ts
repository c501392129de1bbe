/**
 * The item index contract: one suite over SQLite and PostgreSQL (when reachable). Items keyed by
 * title (width, case and punctuation aside), first/last seen, peaks, the sampling rule that keeps
 * storage bounded, CJK substring search, the window, the source filter, and pruning.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/kernel/db.ts';
import { MIN_SAMPLE_GAP_MS, SAMPLE_INTERVAL_MS, type ItemIndex, type ListCommit } from '../../src/kernel/item-index.ts';
import type { ListItem } from '../../src/kernel/list-items.ts';
import { PgItemIndex } from '../../src/kernel/pg-item-index.ts';
import { openPgPool } from '../../src/kernel/pg-store.ts';
import { SqliteItemIndex } from '../../src/kernel/sqlite-item-index.ts';
import { createTestDatabase, requireServices } from '../multi/services.ts';

const T0 = Date.parse('2026-11-21T02:00:00Z');
const MIN = 60_000;
const DAY = 86_400_000;

let seq = 0;
const sid = (name: string) => `${name}-${++seq}`;

const item = (rank: number, title: string, hot?: number): ListItem => ({ rank, title, link: `https://example.com/${encodeURIComponent(title)}`, hot });
const commit = (sourceId: string, at: number, items: ListItem[], changed = true, paramsKey = ''): ListCommit => ({ sourceId, paramsKey, fetchedAt: at, changed, items });

function itemIndexContract(name: string, open: () => Promise<{ index: ItemIndex; close(): Promise<void> }>, skip: string | undefined): void {
  describe.skipIf(!!skip)(`ItemIndex contract: ${name}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    let index: ItemIndex;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ index, close } = await open());
    });
    afterAll(async () => {
      await close?.();
    });

    it('records items with first/last seen, peaks and a first sample; finds them by CJK substring', async () => {
      const s = sid('basic');
      expect(await index.record(commit(s, T0, [item(1, '国产大飞机新航线开通', 5_000_000), item(2, '冬季流感防护指南', 120)]))).toEqual({ written: true, samples: 2 });
      await index.record(commit(s, T0 + MIN_SAMPLE_GAP_MS, [item(3, '国产大飞机新航线开通', 7_000_000), item(1, '冬季流感防护指南', 90)]));
      const [hit, ...rest] = await index.search({ q: '大飞机', sourceId: s, since: T0 - DAY });
      expect(rest).toEqual([]);
      expect(hit).toEqual({
        sourceId: s,
        paramsKey: '',
        title: '国产大飞机新航线开通',
        link: 'https://example.com/%E5%9B%BD%E4%BA%A7%E5%A4%A7%E9%A3%9E%E6%9C%BA%E6%96%B0%E8%88%AA%E7%BA%BF%E5%BC%80%E9%80%9A',
        firstSeenAt: T0,
        lastSeenAt: T0 + MIN_SAMPLE_GAP_MS,
        peakRank: 1,
        peakHot: 7_000_000,
        samples: [
          { at: T0, rank: 1, hot: 5_000_000 },
          { at: T0 + MIN_SAMPLE_GAP_MS, rank: 3, hot: 7_000_000 },
        ],
      });
      const flu = await index.search({ q: '流感', sourceId: s, since: T0 - DAY });
      expect(flu.map((i) => [i.peakRank, i.peakHot])).toEqual([[1, 120]]);
    });

    it('one item per title whatever its width, case, hashtags and punctuation; search ignores them too', async () => {
      const s = sid('width');
      await index.record(commit(s, T0, [item(4, '#ＡＩ大模型发布会#', 10)]));
      await index.record(commit(s, T0 + 30 * MIN, [item(2, 'ai大模型 发布会！', 20)]));
      const found = await index.search({ q: 'Ａi 大模型', sourceId: s, since: T0 - DAY });
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({ title: 'ai大模型 发布会！', firstSeenAt: T0, lastSeenAt: T0 + 30 * MIN, peakRank: 2 });
      expect(await index.search({ q: '！！', sourceId: s, since: T0 - DAY })).toEqual([]);
    });

    it('keeps storage bounded: unchanged lists only once per interval, samples only on a rank move after the gap or after the interval', async () => {
      const s = sid('bounded');
      const list = (rank: number) => [item(rank, '新能源车冬季续航实测', 100)];
      expect((await index.record(commit(s, T0, list(5)))).samples).toBe(1);
      // Unchanged list within the interval: nothing written.
      expect(await index.record(commit(s, T0 + 5 * MIN, list(5), false))).toEqual({ written: false, samples: 0 });
      // Changed list, rank moved, but before the gap: peaks and last seen only.
      expect(await index.record(commit(s, T0 + 10 * MIN, list(2)))).toEqual({ written: true, samples: 0 });
      // Rank moved and the gap passed: a sample.
      expect((await index.record(commit(s, T0 + MIN_SAMPLE_GAP_MS, list(3)))).samples).toBe(1);
      // Same rank, changed list, before the interval: no sample.
      expect((await index.record(commit(s, T0 + MIN_SAMPLE_GAP_MS + 20 * MIN, list(3)))).samples).toBe(0);
      // An unchanged list after the interval since its last recording: recorded, and a sample.
      const late = T0 + MIN_SAMPLE_GAP_MS + 20 * MIN + SAMPLE_INTERVAL_MS;
      expect(await index.record(commit(s, late - MIN, list(3), false))).toEqual({ written: false, samples: 0 });
      expect(await index.record(commit(s, late, list(3), false))).toEqual({ written: true, samples: 1 });
      const [hit] = await index.search({ q: '续航', sourceId: s, since: T0 - DAY });
      expect(hit?.peakRank).toBe(2);
      expect(hit?.lastSeenAt).toBe(late);
      expect(hit?.samples.map((x) => [x.at - T0, x.rank])).toEqual([
        [0, 5],
        [MIN_SAMPLE_GAP_MS, 3],
        [late - T0, 3],
      ]);
    });

    it('keeps the lists of one source apart by params key, filters by source and window, newest first', async () => {
      const a = sid('lists');
      const b = sid('other');
      await index.record(commit(a, T0, [item(1, '春运火车票今起开售')], true, 'board=hot'));
      await index.record(commit(a, T0 + DAY, [item(7, '春运火车票今起开售')], true, 'board=forum'));
      await index.record(commit(b, T0 + 2 * DAY, [item(3, '春运火车票开售')]));
      const all = await index.search({ q: '火车票', since: T0 - DAY });
      const mine = all.filter((i) => i.sourceId === a || i.sourceId === b);
      expect(mine.map((i) => [i.sourceId, i.paramsKey])).toEqual([
        [b, ''],
        [a, 'board=forum'],
        [a, 'board=hot'],
      ]);
      expect((await index.search({ q: '火车票', sourceId: a, since: T0 - DAY })).map((i) => i.paramsKey)).toEqual(['board=forum', 'board=hot']);
      // The window: only items seen since, and only their samples since.
      expect((await index.search({ q: '火车票', sourceId: a, since: T0 + DAY / 2 })).map((i) => i.paramsKey)).toEqual(['board=forum']);
      expect(await index.search({ q: '火车票', sourceId: a, since: T0 + 3 * DAY })).toEqual([]);
      expect((await index.search({ q: '火车票', since: T0 - DAY, limit: 1 })).length).toBe(1);
    });

    it('titles: what was on any list during a range, most recently seen first; firstSeen by title key', async () => {
      const s = sid('titles');
      const far = T0 + 400 * DAY;
      await index.record(commit(s, far, [item(1, '冬奥会开幕式彩排'), item(2, '新版医保目录公布')]));
      await index.record(commit(s, far + 2 * DAY, [item(1, '新版医保目录公布'), item(2, '元旦假期出行高峰')]));
      await index.record(commit(s, far + 10 * DAY, [item(1, '寒潮预警升级')]));
      // Seen during [far + DAY, far + 3 DAY]: last seen on or after its start, first seen by its end.
      expect((await index.titles({ from: far + DAY, to: far + 3 * DAY, limit: 10 })).sort()).toEqual(['元旦假期出行高峰', '新版医保目录公布']);
      expect(await index.titles({ from: far + 5 * DAY, to: far + 11 * DAY, limit: 10 })).toEqual(['寒潮预警升级']);
      expect(await index.titles({ from: far + DAY, to: far + 3 * DAY, limit: 1 })).toHaveLength(1);
      const seen = await index.firstSeen(s, '', ['新版医保目录公布', '元旦假期出行高峰', '不在榜上']);
      expect(seen).toEqual(new Map([['新版医保目录公布', far], ['元旦假期出行高峰', far + 2 * DAY]]));
      expect(await index.firstSeen(s, 'board=other', ['新版医保目录公布'])).toEqual(new Map());
    });

    it('the best rank of a title listed twice in one commit wins; untitled items are ignored', async () => {
      const s = sid('dupes');
      await index.record(commit(s, T0, [item(3, '年度汉字评选揭晓'), item(9, '年度汉字评选揭晓。'), item(4, '！？')]));
      const found = await index.search({ q: '汉字', sourceId: s, since: T0 - DAY });
      expect(found.map((i) => [i.peakRank, i.samples.length])).toEqual([[3, 1]]);
    });

    it('prunes samples and items older than the retention; 0 keeps everything', async () => {
      const s = sid('prune');
      await index.record(commit(s, T0, [item(1, '跨年档电影预售开启'), item(2, '冰雪旅游预订量增长')]));
      await index.record(commit(s, T0 + 20 * DAY, [item(1, '冰雪旅游预订量增长')]));
      await index.prune({ now: T0 + 40 * DAY, retentionDays: 0 });
      expect((await index.search({ q: '预', sourceId: s, since: 0 })).length).toBe(2);
      await index.prune({ now: T0 + 40 * DAY, retentionDays: 30 });
      const left = await index.search({ q: '预', sourceId: s, since: 0 });
      expect(left.map((i) => i.title)).toEqual(['冰雪旅游预订量增长']);
      expect(left[0]?.samples.map((x) => x.at)).toEqual([T0 + 20 * DAY]);
      expect(left[0]?.firstSeenAt).toBe(T0);
      // A list recorded before the cutoff is recorded again at its next commit, even unchanged.
      expect((await index.record(commit(s, T0 + 40 * DAY, [item(1, '冰雪旅游预订量增长')], false))).written).toBe(true);
    });

    it('concurrent commits of one list leave one item and one sample per time', async () => {
      const s = sid('race');
      await Promise.all(Array.from({ length: 5 }, () => index.record(commit(s, T0, [item(1, '地铁新线路试运营', 10)]))));
      const found = await index.search({ q: '地铁', sourceId: s, since: 0 });
      expect(found).toHaveLength(1);
      expect(found[0]?.samples).toEqual([{ at: T0, rank: 1, hot: 10 }]);
    });
  });
}

itemIndexContract(
  'SqliteItemIndex',
  async () => {
    const db = openDatabase(':memory:');
    return {
      index: new SqliteItemIndex(db),
      close: async () => {
        db.close();
      },
    };
  },
  undefined,
);

const pgAvailable = await requireServices({ postgres: true });

itemIndexContract(
  'PgItemIndex',
  async () => {
    const db = await createTestDatabase();
    const pool = openPgPool(db.url, { max: 4 });
    const index = await PgItemIndex.open(pool);
    return {
      index,
      async close() {
        await pool.end();
        await db.drop();
      },
    };
  },
  pgAvailable.missing,
);
