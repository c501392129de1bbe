/**
 * Upgrading stored data at a release that changed shapes, through the real server and store, on
 * SQLite and PostgreSQL: rows written in the shapes of before 60s's list shapes (a hot list in
 * its `{list, total, updated, updated_at}` container with a field since renamed, a digest without
 * 60s's times) are served in today's shape from the cached snapshot with the upstream down
 * (STALE), from the archive (`?at=`) and from history (`?date=`, the RSS feed). Nothing is lost.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Parser from 'rss-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentHash } from '../../src/kernel/archive.ts';
import { sha1 } from '../../src/kernel/digest.ts';
import changya from '../../sources/changya.ts';
import lifestyle from '../../sources/hot-lifestyle-a.ts';
import sixty from '../../sources/60s.ts';
import { createTestDatabase, requireServices } from '../multi/services.ts';
import { TestClock } from '../support/clock.ts';
import { startService, type TestService } from '../support/service.ts';
import { Upstream } from '../support/upstream.ts';
import { CHANGYA_PIECES } from '../sources/old-shapes.ts';

/** 11:00 Asia/Shanghai on 2026-11-21. */
const NOW = Date.parse('2026-11-21T03:00:00Z');
const HOUR = 3_600_000;

/** hot-lifestyle-a as the release before 60s's shapes stored it: a container, `word_type_icon`, no `score`. */
function oldLifestyle(tag: string, at: number): Record<string, unknown> {
  const list = [1, 2, 3, 4, 5, 6].map((n) => ({
    rank: n,
    title: `${tag}话题${n}`,
    link: `https://www.xiaohongshu.com/search_result?keyword=${encodeURIComponent(`${tag}话题${n}`)}&type=51`,
    hot_value: 1_000_000 - n * 1000,
    hot_value_desc: `${100 - n}.9万`,
    word_type: n === 1 ? '热' : null,
    word_type_icon: n === 1 ? 'https://picasso-static.xiaohongshu.com/fe-platform/hot.png' : null,
    rank_change: n - 3,
  }));
  return { list, total: list.length, updated: '2026-11-21 09:00:00', updated_at: at };
}

/** A 60s digest as stored before it had 60s's times: `updated` was our fetch time. */
function oldDigest(date: string, fetchedAt: number): Record<string, unknown> {
  const publishedAt = Date.parse(`${date}T00:30:00+08:00`);
  return {
    date,
    day_of_week: '星期五',
    lunar_date: '十月初二',
    news: [`${date} 要闻一`, `${date} 要闻二`, `${date} 要闻三`],
    tip: `${date} 的微语`,
    cover: '',
    image: '',
    link: '',
    is_today: false,
    requested_date: date,
    published: `${date} 00:30:00`,
    published_at: publishedAt,
    updated: '2026-11-21 08:00:00',
    updated_at: fetchedAt,
  };
}

interface LifestyleItem {
  title: string;
  score: string;
  word_type: string;
  work_type_icon: string;
  word_type_icon?: unknown;
}

const pg = await requireServices({ postgres: true });

for (const backend of ['sqlite', 'postgres'] as const) {
  const skip = backend === 'postgres' ? pg.missing : undefined;
  describe.skipIf(!!skip)(`stored data of an older shape on ${backend}${backend === 'postgres' ? pg.label : ''}`, () => {
    // No route is served and no fixture found: every upstream request fails.
    const upstream = new Upstream(fs.mkdtempSync(path.join(os.tmpdir(), 'no-fixtures-')));
    const clock = new TestClock(NOW);
    let svc: TestService;
    let dropDb: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      await upstream.start();
      const env: Record<string, string> = {};
      if (backend === 'postgres') {
        const db = await createTestDatabase();
        env.DATABASE_URL = db.url;
        dropDb = db.drop;
      }
      svc = await startService({ upstream, now: clock.now, sources: [lifestyle, sixty, changya], env });
    });
    afterAll(async () => {
      await svc?.close();
      await upstream.stop();
      await dropDb?.();
    });

    it('an old-shape cached list with a failing upstream is served STALE as the bare array, fields renamed', async () => {
      const payload = JSON.stringify(oldLifestyle('今', NOW - HOUR));
      await svc.store.commitSuccess({ sourceId: 'hot-lifestyle-a', paramsKey: '', params: '{}', payload, payloadHash: sha1(payload), itemCount: 6, fetchedAt: NOW - HOUR, expiresAt: NOW - HOUR + 600_000, historyParamsKey: '', guids: [] });
      const r = await svc.get('/v2/apis/hot-lifestyle-a');
      expect(r.status).toBe(200);
      expect(r.headers.get('x-cache')).toBe('STALE');
      expect(r.headers.get('x-total-count')).toBe('6');
      const items = ((await r.json()) as { data: LifestyleItem[] }).data;
      expect(Array.isArray(items)).toBe(true);
      expect(items.map((i) => i.title)).toEqual([1, 2, 3, 4, 5, 6].map((n) => `今话题${n}`));
      expect(items[0]).toMatchObject({ score: '99.9万', word_type: '热', work_type_icon: 'https://picasso-static.xiaohongshu.com/fe-platform/hot.png' });
      expect(items[1]).toMatchObject({ word_type: '', work_type_icon: '' });
      expect(items.every((i) => !('word_type_icon' in i))).toBe(true);
      // Every encoding renders it (they read today's shape).
      for (const enc of ['text', 'markdown', 'html', 'rss']) {
        const e = await svc.get(`/v2/apis/hot-lifestyle-a?encoding=${enc}`);
        expect(e.status).toBe(200);
        expect(await e.text()).toContain('今话题3');
      }
      // Reading changes nothing stored: the old row stays until a fetch succeeds.
      expect((await svc.store.getSnapshot('hot-lifestyle-a', ''))?.payload).toBe(payload);
    });

    it('an old-shape archived snapshot read with ?at= answers in the new shape', async () => {
      const at = NOW - 5 * HOUR;
      const old = oldLifestyle('昨', at);
      await svc.store.archive.record({ sourceId: 'hot-lifestyle-a', paramsKey: '', fetchedAt: at, contentHash: contentHash(old), payload: JSON.stringify(old) });
      const r = await svc.get(`/v2/apis/hot-lifestyle-a?at=${at + HOUR}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('x-cache')).toBe('HISTORY');
      const items = ((await r.json()) as { data: LifestyleItem[] }).data;
      expect(Array.isArray(items)).toBe(true);
      expect(items[0]).toMatchObject({ title: '昨话题1', score: '99.9万', work_type_icon: 'https://picasso-static.xiaohongshu.com/fe-platform/hot.png' });
      const feed = await new Parser().parseString(await (await svc.get(`/v2/apis/hot-lifestyle-a?at=${at + HOUR}&encoding=rss`)).text());
      expect(feed.items.map((i) => i.title)).toContain('昨话题2');
    });

    it('a local source computes from its old-shape feed upgraded (changya: gender letters, avatar_url, duration)', async () => {
      const payload = JSON.stringify({ items: CHANGYA_PIECES });
      await svc.store.commitSuccess({ sourceId: 'changya', paramsKey: '', params: '{}', payload, payloadHash: sha1(payload), itemCount: 2, fetchedAt: NOW - HOUR, expiresAt: NOW + HOUR, historyParamsKey: '', guids: [] });
      const genders = new Set<string>();
      for (let i = 0; i < 12; i++) {
        const r = await svc.get('/v2/apis/changya?encoding=json');
        expect(r.status).toBe(200);
        const piece = ((await r.json()) as { data: { user: Record<string, unknown>; audio: Record<string, unknown> } }).data;
        expect(piece.user.avatar_url).toBe(piece.user.avatar);
        expect(piece.audio.duration).toBe((piece.audio.duration_sec as number) * 1000);
        genders.add(`${piece.user.gender as string}/${piece.user.gender_text as string}`);
      }
      expect([...genders].every((g) => g === 'F/female' || g === 'M/male')).toBe(true);
    });

    it('old-shape history rows answer ?date=, the feed and the cold current key in the new shape', async () => {
      const days = ['2026-11-20', '2026-11-19'];
      for (const d of days) {
        const payload = JSON.stringify(oldDigest(d, NOW - 2 * HOUR));
        await svc.store.commitSuccess({ sourceId: '60s', paramsKey: `date=${d}`, params: JSON.stringify({ date: d }), payload, payloadHash: sha1(payload), itemCount: 3, fetchedAt: NOW - 2 * HOUR, expiresAt: NOW - HOUR, historyKey: d, historyParamsKey: '', guids: [] });
      }
      const dated = (await (await svc.get('/v2/apis/60s?date=2026-11-19')).json()) as { data: Record<string, unknown> };
      expect(dated.data).toMatchObject({ date: '2026-11-19', api_updated_at: NOW - 2 * HOUR, updated_at: Date.parse('2026-11-19T00:30:00+08:00'), created_at: Date.parse('2026-11-19T00:30:00+08:00') });
      // The current key was never fetched and the upstream is down: the newest day answers, STALE.
      const cold = await svc.get('/v2/apis/60s');
      expect(cold.status).toBe(200);
      expect(cold.headers.get('x-cache')).toBe('STALE');
      expect(((await cold.json()) as { data: Record<string, unknown> }).data).toMatchObject({ date: '2026-11-20', api_updated: '2026-11-21 08:00:00' });
      const feed = await new Parser().parseString(await (await svc.get('/v2/apis/60s/rss')).text());
      expect(feed.items).toHaveLength(2);
      expect(feed.items[0]?.title).toContain('2026-11-20');
    });
  });
}
