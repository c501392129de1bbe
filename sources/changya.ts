/**
 * 唱鸭: a random user recording from the singing site. Answers with the audio by default (302 to
 * the audio file; `audio-proxy` streams it through us); json, text and markdown give the details.
 *
 * The feed fetches a few seed pages of the site per run (JSON in `script#__NEXT_DATA__` →
 * `props.pageProps.pieces[]`) and keeps up to MAX_PIECES recent pieces in the store, merged with
 * the previous ones. Recordings belong to their singers, so nothing is bundled: until a first
 * fetch succeeds the endpoint answers 503 with Retry-After (the first request waits for one fetch).
 */
import { randomInt } from 'node:crypto';
import { load } from './_shared/html.ts';
import { escapeMarkdown, markdownUrl } from '../src/encoding/escape.ts';
import { AppError, SourceError } from '../src/kernel/errors.ts';
import { need } from '../src/kernel/json-path.ts';
import { defineSource } from '../src/kernel/source.ts';
import { formatDateTime, formatSixtyDateTime, withSixtyDateTimes } from '../src/kernel/time.ts';
import { pickItem, text } from './_shared/corpus.ts';
import { asArray, asNumber, asRecord, asString, pick } from './_shared/hot-list.ts';

/** Seed pages (each lists a few dozen pieces). */
export const DEFAULT_SEEDS = [
  '7o62vihNpccBDyDPv',
  '7onVzoWsr2m12T3Jn',
  '9o73vLjV8gBVXsaTK',
  'bop2h0lm9HqkTZk5l',
  'foh3CeIN82Vq2V1g8',
  'fop3CRU0CDDRVZyRv',
  'Io82fiEPMZXca3L2h',
  'jov3lixipX1myTZJ8',
  'Ko-3CFC4SwwgPVkad',
  'Koj3bFjg9iTHHFVwp',
  'OoC38kEclV2PHPw08',
  'QoM37qUJxRJg5ZR5U',
  'roz2SJYV8oy0sNHPl',
  'SoO36F74v12acJg5z',
  'SoQJ9cKu61FJ1Vwc7',
  'Soz3xRz1f230H3ws6',
  'toGZlBfZbukck2sHb',
  'WoENz0IiQVX1PLJs7',
];
export const PAGE_URL = (id: string) => `https://m.singduck.cn/user-piece/cont_${encodeURIComponent(id)}`;
const SEEDS_ENV = 'SOURCE_CHANGYA_SEEDS';
const SEEDS_PER_RUN = 3;
export const MAX_PIECES = 300;
const RETRY_AFTER_SEC = 60;

export interface Piece {
  /** The site's id of the recording. */
  piece_id: string;
  /** `gender` is the site's letter (`M`, `F`, or empty), `gender_text` the word; `avatar_url` is `avatar` under 60s's name. */
  user: { nickname: string; gender: 'M' | 'F' | ''; gender_text: 'male' | 'female' | ''; avatar: string; avatar_url: string };
  song: { name: string; singer: string; lyrics: string[] };
  /** `duration` is the site's length in milliseconds, `duration_sec` the same in seconds. */
  audio: { url: string; duration: number | null; duration_sec: number | null; like_count: number; link: string; publish: string | null; publish_at: number | null };
}

export interface ChangyaFeed {
  items: Piece[];
}

/**
 * A piece stored before 60s's shape (release 271b638): `gender` was the word, the avatar was
 * `avatar` only and the length was `duration_sec` (rounded to 0.1 s, so `duration` in ms is as
 * precise as that). Today's pieces pass unchanged.
 */
export function migratePiece(stored: Piece): Piece {
  // `publish` was written YYYY-MM-DD HH:mm:ss before it took 60s's form.
  const audio = withSixtyDateTimes(stored.audio, ['publish']);
  const p = audio === stored.audio ? stored : { ...stored, audio };
  if ('avatar_url' in p.user && 'duration' in p.audio) return p;
  const old = p.user.gender as string;
  const gender = old === 'male' || old === 'M' ? 'M' : old === 'female' || old === 'F' ? 'F' : '';
  return {
    ...p,
    user: { nickname: p.user.nickname, gender, gender_text: gender === 'M' ? 'male' : gender === 'F' ? 'female' : '', avatar: p.user.avatar, avatar_url: p.user.avatar },
    audio: { ...p.audio, duration: p.audio.duration_sec === null ? null : Math.round(p.audio.duration_sec * 1000) },
  };
}

/** The stored feed in today's shape (see migratePiece); the same value when every piece is current. */
export function migrateFeed(stored: unknown): ChangyaFeed | undefined {
  const d = stored as ChangyaFeed | null;
  if (!d || typeof d !== 'object' || !Array.isArray(d.items)) return undefined;
  const items = d.items.map(migratePiece);
  return items.every((p, i) => p === d.items[i]) ? d : { ...d, items };
}

function decodeUrl(u: string | undefined): string | undefined {
  if (!u) return undefined;
  let out = u.trim();
  // The site percent-encodes whole URLs ("https%3A%2F%2F…"); decode until it is a URL.
  for (let i = 0; i < 2 && /^https?%3A/i.test(out); i++) {
    try {
      out = decodeURIComponent(out);
    } catch {
      return undefined;
    }
  }
  return /^https?:\/\/[^\s]+$/i.test(out) ? out : undefined;
}

/** A publish time as ms: epoch ms or s (number or digits), or a date-time string (Asia/Shanghai when it names no zone). */
export function publishMs(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{10,13}$/.test(v.trim()) ? Number(v.trim()) : undefined;
  if (n !== undefined && Number.isFinite(n) && n > 0) return n < 1e12 ? n * 1000 : n;
  if (typeof v !== 'string' || !v.trim()) return null;
  const s = v.trim().replace(/\//g, '-');
  const iso = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?$/.test(s) ? `${s.replace(' ', 'T')}+08:00` : s;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : null;
}

/** The pieces of one page. Pieces without an http(s) audio URL are skipped. */
export function parsePage(html: string): Piece[] {
  const $ = load(html);
  const json = $('script#__NEXT_DATA__').first().text();
  if (!json) throw new SourceError('parse', 'the page has no script#__NEXT_DATA__');
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch {
    throw new SourceError('parse', '__NEXT_DATA__ is not JSON');
  }
  const pieces = need(data, 'props.pageProps.pieces', asArray, 'an array in __NEXT_DATA__');
  const out: Piece[] = [];
  for (const entry of pieces) {
    const p = asRecord(entry);
    if (!p) continue;
    const url = decodeUrl(asString(p.originAudioUrl)) ?? decodeUrl(asString(p.audioUrl)) ?? decodeUrl(asString(p.recordUrl));
    const id = asString(p.ugcId) ?? asString(p.audioId);
    if (!url || !id) continue;
    const user = asRecord(p.user);
    const gender = (asString(p.gender) ?? asString(user?.gender) ?? '').toUpperCase();
    const durationMs = asNumber(p.audioDuration);
    const avatar = decodeUrl(asString(user?.avatarUrl)) ?? decodeUrl(asString(p.avatarUrl)) ?? '';
    const published = publishMs(p.publishTime);
    out.push({
      piece_id: id,
      user: {
        nickname: text(p.nickname) ?? text(user?.nickname) ?? '',
        gender: gender === 'M' || gender === 'MALE' ? 'M' : gender === 'F' || gender === 'FEMALE' ? 'F' : '',
        gender_text: gender === 'M' || gender === 'MALE' ? 'male' : gender === 'F' || gender === 'FEMALE' ? 'female' : '',
        avatar,
        avatar_url: avatar,
      },
      song: {
        name: text(p.songName) ?? text(p.songname) ?? '',
        singer: text(p.artist) ?? '',
        lyrics: (asString(p.lyric) ?? '')
          .split(/\r?\n/)
          .map((l) => l.trim())
          .filter(Boolean),
      },
      audio: {
        url,
        // audioDuration is in milliseconds.
        duration: durationMs ?? null,
        duration_sec: durationMs !== undefined ? Math.round(durationMs / 100) / 10 : null,
        like_count: asNumber(p.likeCount) ?? 0,
        link: PAGE_URL(id),
        publish: published === null ? null : formatSixtyDateTime(published),
        publish_at: published,
      },
    });
  }
  return out;
}

function seedsFrom(setting: string | undefined): string[] {
  const seeds = (setting ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return seeds.length ? seeds : DEFAULT_SEEDS;
}

/** `n` distinct random elements (partial Fisher–Yates with node:crypto). */
function sample<T>(items: readonly T[], n: number): T[] {
  const a = [...items];
  const k = Math.min(n, a.length);
  for (let i = 0; i < k; i++) {
    const j = i + randomInt(a.length - i);
    [a[i], a[j]] = [a[j] as T, a[i] as T];
  }
  return a.slice(0, k);
}

export interface Changya extends Piece {
  total: number;
  /** When the pieces were fetched. */
  updated: string;
  updated_at: number;
}

function duration(sec: number | null): string {
  if (sec === null) return '';
  const s = Math.round(sec);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

export default defineSource({
  id: 'changya',
  name: '唱鸭',
  description: 'A random user recording from the singing site: 302 to the audio by default (encoding=audio); audio-proxy streams it; json and markdown give singer, song, lyrics and links, text the bare audio URL (as 60s). 503 until the first fetch of pieces has succeeded.',
  homepage: 'https://m.singduck.cn',
  routes: [{ path: '/changya' }],
  env: [{ name: SEEDS_ENV, doc: 'Seed page ids of the singing site, comma-separated (a built-in list by default)' }],
  mode: 'local',
  feed: {
    schedule: '7 */2 * * *',
    freshness: { ttlSec: 4 * 3600, timeoutMs: 20_000, backoffCapSec: 3 * 3600 },
    headers: { accept: 'text/html,application/xhtml+xml', referer: 'https://m.singduck.cn/' },
    awaitFirst: true,
    async fetch(ctx): Promise<ChangyaFeed> {
      const seeds = sample(seedsFrom(ctx.env(SEEDS_ENV)), SEEDS_PER_RUN);
      const pages = await Promise.allSettled(seeds.map(async (seed) => parsePage(await ctx.http.text(PAGE_URL(seed), { signal: ctx.signal }))));
      const fresh = pages.flatMap((p) => (p.status === 'fulfilled' ? p.value : []));
      const lastError = pages.map((p) => (p.status === 'rejected' ? (p.reason as unknown) : undefined)).find(Boolean);
      if (!fresh.length) throw lastError instanceof Error ? lastError : new SourceError('empty', 'the seed pages held no playable piece');
      const seen = new Set<string>();
      const items = [...fresh, ...(ctx.previous?.data.items ?? [])].filter((p) => !seen.has(p.piece_id) && seen.add(p.piece_id)).slice(0, MAX_PIECES);
      return { items };
    },
    validate: (d) => (d.items.length ? undefined : 'no playable piece'),
    migrate: migrateFeed,
    count: (d) => d.items.length,
  },
  compute(ctx): Changya {
    if (!ctx.feed?.data.items.length) {
      throw new AppError(503, `No recording of the singing site has been fetched yet, and none is bundled (the recordings belong to their singers). Try again in ${RETRY_AFTER_SEC} s.`, {
        expose: true,
        headers: { 'Retry-After': String(RETRY_AFTER_SEC) },
      });
    }
    const { items } = ctx.feed.data;
    const { item } = pickItem(items, undefined, 'recording');
    return { ...item, total: items.length, updated: formatDateTime(ctx.feed.fetchedAt), updated_at: ctx.feed.fetchedAt };
  },
  view: {
    title: (d) => `唱鸭 · ${d.song.name}`,
    audioUrl: (d) => d.audio.url,
    defaultEncoding: 'audio',
    encodings: ['audio', 'audio-proxy', 'json', 'text', 'markdown'],
    // 60s's text is the audio URL alone, which players and scripts open as it is.
    text: (d) => d.audio.url,
    markdown: (d) =>
      [
        `# 🎤 ${escapeMarkdown(d.song.name || '唱鸭')}`,
        '',
        `- 演唱：${escapeMarkdown(d.user.nickname)}`,
        ...(d.song.singer ? [`- 原唱：${escapeMarkdown(d.song.singer)}`] : []),
        ...(d.audio.duration_sec !== null ? [`- 时长：${duration(d.audio.duration_sec)}`] : []),
        `- 点赞：${d.audio.like_count}`,
        ...(d.audio.publish ? [`- 发布：${d.audio.publish}`] : []),
        `- [收听](${markdownUrl(d.audio.url)}) · [页面](${markdownUrl(d.audio.link)})`,
        ...(d.song.lyrics.length ? ['', '> ' + d.song.lyrics.slice(0, 6).map(escapeMarkdown).join('  \n> ')] : []),
        '',
      ].join('\n'),
  },
  example: '/v2/apis/changya?encoding=json',
});
