/**
 * NetEase Cloud Music charts (music.163.com). `/music-rank/list` is the directory of official
 * charts (`/api/toplist`, kept warm by the scheduler); `/music-rank/{id}` is one chart or any
 * public playlist by id (`/api/playlist/detail`, fetched on demand and cached per id).
 * The API answers HTTP 200 with its own `code` in the body: 200 is success, 404/400 mean the
 * playlist does not exist, -460/-462/301 are risk control or a login wall. Tracks come in two
 * shapes: the legacy one (`artists`, `album`, `duration`, `hMusic`…) and the v6 one (`ar`, `al`,
 * `dt`, `h`…); both are read.
 */
import { SourceError } from '../src/kernel/errors.ts';
import { missingPath, need } from '../src/kernel/json-path.ts';
import { defineSource } from '../src/kernel/source.ts';
import { formatDate, formatDateTime } from '../src/kernel/time.ts';
import { asArray, asNumber, asRecord, asString, migrateHotList, missing, validateHotList, type HotItem, type HotList } from './_shared/hot-list.ts';

export const TOPLIST_URL = 'https://music.163.com/api/toplist';
export const PLAYLIST_URL = 'https://music.163.com/api/playlist/detail';

export interface Chart extends HotItem {
  id: number;
  name: string;
  description: string | null;
  /** The chart's cover image; '' when none. */
  cover: string;
  update_frequency: string;
  track_count: number | null;
  play_count: number | null;
  subscribed_count: number | null;
  /** When the chart itself was last updated. */
  updated: string | null;
  updated_at: number | null;
  created: string | null;
  created_at: number | null;
}

export interface Artist {
  id: number;
  name: string;
  link: string;
  /** The artist's picture; '' when none. */
  cover: string;
}

/** A track's album; `id` 0 and empty texts when the upstream names none. */
export interface Album {
  id: number;
  name: string;
  link: string;
  /** '' when none. */
  cover: string;
  /** Release day (YYYY-MM-DD); '' when unknown. */
  published: string;
  /** Release time in ms; 0 when unknown. */
  published_at: number;
  /** '' when unknown. */
  company: string;
}

export interface Quality {
  size: number;
  size_desc: string;
  bitrate: number | null;
  extension: string | null;
}

export interface Track extends HotItem {
  id: number;
  /** Name of the chart or playlist the track is listed in (the same on every track). */
  rank_name: string;
  /** The track's artists (60s's name for the array). */
  artist: Artist[];
  album: Album;
  /** Length in ms. */
  duration: number | null;
  duration_desc: string | null;
  popularity: number | null;
  score: number;
  fee: number | null;
  status: number | null;
  /** Audio qualities: lossless (sq), high, medium and low; null where the track has none. */
  mb: { sq: Quality | null; hq: Quality | null; mq: Quality | null; lq: Quality | null };
}

export type ChartList = HotList<Chart>;
export type ChartDetail = HotList<Track>;
export type MusicRankData = ChartList | ChartDetail;

/** Whether the data is one chart's tracks (rather than the directory of charts). */
export function isChart(data: MusicRankData): data is ChartDetail {
  return data.some((i) => 'rank_name' in i);
}

const songLink = (id: number) => `https://music.163.com/#/song?id=${id}`;
export const chartLink = (id: number) => `https://music.163.com/#/discover/toplist?id=${id}`;

function timePair(ms: number | undefined): [string | null, number | null] {
  return ms && ms > 0 ? [formatDateTime(ms), ms] : [null, null];
}

/** 1536 → "1.5 KB", 3_456_789 → "3.3 MB" (binary units, like the NetEase client). */
export function sizeDesc(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB'];
  let n = bytes;
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u += 1;
  }
  return `${u === 0 ? n : Math.round(n * 100) / 100} ${units[u]}`;
}

/** 245_000 ms → "4:05". */
export function durationDesc(ms: number): string {
  const total = Math.round(ms / 1000);
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`;
}

/** The body's own status code: the API answers HTTP 200 with failures inside. */
function checkCode(root: Record<string, unknown>, what: string): void {
  const code = asNumber(root.code);
  if (code === 200) return;
  const msg = asString(root.message) ?? asString(root.msg) ?? '';
  const detail = `code=${code ?? 'missing'}${msg ? ` ${msg}` : ''}`;
  if (code === -460 || code === -462 || code === 301 || code === 401 || code === 403) {
    throw new SourceError('blocked', `music.163.com refused the ${what} request (${detail}): risk control or login wall`);
  }
  if (code !== undefined && code >= 500) throw new SourceError('transient', `music.163.com answered ${detail} for the ${what}`);
  throw new SourceError('parse', `music.163.com answered ${detail} for the ${what}`);
}

/** The chart directory (`/api/toplist`). */
export function parseCharts(raw: unknown): ChartList {
  const root = need(raw, '', asRecord, 'a JSON object');
  checkCode(root, 'toplist');
  const entries = asArray(root.list);
  if (!entries) throw missingPath(root, 'list', 'an array');
  const list: Chart[] = [];
  for (const entry of entries) {
    const e = asRecord(entry);
    const id = asNumber(e?.id);
    const name = asString(e?.name)?.trim();
    if (!e || id === undefined || !name) continue;
    const [updated, updatedAt] = timePair(asNumber(e.updateTime));
    const [created, createdAt] = timePair(asNumber(e.createTime));
    const playCount = asNumber(e.playCount) ?? null;
    list.push({
      rank: list.length + 1,
      title: name,
      link: chartLink(id),
      cover: asString(e.coverImgUrl) ?? '',
      ...(playCount !== null ? { hot_value: playCount } : {}),
      id,
      name,
      description: asString(e.description)?.trim() || null,
      update_frequency: asString(e.updateFrequency) ?? '',
      track_count: asNumber(e.trackCount) ?? null,
      play_count: playCount,
      subscribed_count: asNumber(e.subscribedCount) ?? null,
      updated,
      updated_at: updatedAt,
      created,
      created_at: createdAt,
    });
  }
  return list;
}

function quality(v: unknown): Quality | null {
  const q = asRecord(v);
  const size = asNumber(q?.size);
  if (!q || !size) return null;
  return { size, size_desc: sizeDesc(size), bitrate: asNumber(q.bitrate) ?? asNumber(q.br) ?? null, extension: asString(q.extension) ?? null };
}

function album(v: unknown): Album {
  const a = asRecord(v);
  const id = asNumber(a?.id) ?? 0;
  const published = asNumber(a?.publishTime);
  const known = published !== undefined && published > 0;
  return {
    id,
    name: asString(a?.name) ?? '',
    link: id ? `https://music.163.com/#/album?id=${id}` : '',
    cover: asString(a?.picUrl) || asString(a?.blurPicUrl) || '',
    published: known ? formatDate(published) : '',
    published_at: known ? published : 0,
    company: asString(a?.company) ?? '',
  };
}

function track(v: unknown, rank: number, rankName: string): Track | undefined {
  const t = asRecord(v);
  const id = asNumber(t?.id);
  const title = asString(t?.name)?.trim();
  if (!t || id === undefined || !title) return undefined;
  const artists: Artist[] = (asArray(t.artists) ?? asArray(t.ar) ?? []).flatMap((x) => {
    const a = asRecord(x);
    const aid = asNumber(a?.id);
    const name = asString(a?.name);
    if (!a || aid === undefined || !name) return [];
    return [{ id: aid, name, link: `https://music.163.com/#/artist?id=${aid}`, cover: asString(a.picUrl) ?? '' }];
  });
  const al = album(t.album ?? t.al);
  const duration = asNumber(t.duration) ?? asNumber(t.dt) ?? null;
  return {
    rank,
    title,
    link: songLink(id),
    ...(al.cover ? { cover: al.cover } : {}),
    id,
    rank_name: rankName,
    artist: artists,
    album: al,
    duration,
    duration_desc: duration !== null ? durationDesc(duration) : null,
    popularity: asNumber(t.popularity) ?? asNumber(t.pop) ?? null,
    score: asNumber(t.score) ?? asNumber(t.pop) ?? 0,
    fee: asNumber(t.fee) ?? null,
    status: asNumber(t.status) ?? asNumber(t.st) ?? null,
    mb: {
      sq: quality(t.sqMusic ?? t.sq),
      hq: quality(t.hMusic ?? t.h),
      mq: quality(t.mMusic ?? t.m),
      lq: quality(t.lMusic ?? t.l),
    },
  };
}

/** One chart or playlist (`/api/playlist/detail?id=`). */
export function parseChart(raw: unknown, id: string): ChartDetail {
  const root = need(raw, '', asRecord, 'a JSON object');
  const code = asNumber(root.code);
  if (code === 404 || code === 400) throw new SourceError('not_found', `NetEase Cloud Music has no playlist with id ${id}; see /v2/apis/music-rank/list for the chart ids`);
  checkCode(root, 'playlist');
  const result = asRecord(root.result) ?? asRecord(root.playlist);
  const tracks = asArray(result?.tracks);
  if (!result || !tracks) throw missingPath(root, 'result.tracks', 'an array; playlist.tracks is missing too');
  const name = asString(result.name)?.trim() ?? '';
  if (!name) throw missingPath(root, asRecord(root.result) ? 'result.name' : 'playlist.name', `the name of playlist ${id}`);
  return tracks.map((t, i) => track(t, i + 1, name)).filter((t): t is Track => t !== undefined);
}

/**
 * Stored data of before 60s's shapes: `{kind: 'charts', list}` (the directory) and
 * `{kind: 'chart', name, list}` (one chart, whose tracks had `artists`, `quality` and a nullable
 * album) become the bare arrays of today.
 */
export const migrate = migrateHotList<Chart | Track>({
  renamed: { artists: 'artist', quality: 'mb' },
  fill: (i, list) => {
    if (list.kind !== 'chart') return missing(i, { cover: '' });
    const album = asRecord(i.album);
    return {
      ...missing(i, { rank_name: asString(list.name) ?? '' }),
      artist: (asArray(i.artist) ?? []).map((a) => ({ ...asRecord(a), cover: asString(asRecord(a)?.cover) ?? '' })),
      album: {
        id: asNumber(album?.id) ?? 0,
        name: asString(album?.name) ?? '',
        link: asString(album?.link) ?? '',
        cover: asString(album?.cover) ?? '',
        published: asString(album?.published) ?? '',
        published_at: asNumber(album?.published_at) ?? 0,
        company: asString(album?.company) ?? '',
      },
    };
  },
}) as (stored: unknown) => MusicRankData | undefined;

export function validate(data: MusicRankData): string | undefined {
  return validateHotList(data, isChart(data) ? 1 : 5);
}

export default defineSource({
  id: 'music-rank',
  name: '网易云音乐排行榜',
  description: 'NetEase Cloud Music charts: the list of official charts, and the tracks of one chart (or any public playlist) by id, with artists, album, duration and audio qualities.',
  homepage: 'https://music.163.com/#/discover/toplist',
  routes: [
    // Listed before /:id so that "list" is never read as an id; `id` fixed empty so that a
    // query `?id=` cannot turn the directory into a chart (or into another cache key).
    { path: '/music-rank/list', fixed: { id: '' }, summary: 'The official NetEase Cloud Music charts: id, name, description, cover, update frequency and time.' },
    { path: '/music-rank/:id', example: '/v2/apis/music-rank/3778678?encoding=text', summary: 'The tracks of one NetEase Cloud Music chart or public playlist, by its numeric id (from /v2/apis/music-rank/list).' },
  ],
  params: {
    id: {
      type: 'string',
      in: 'path',
      pattern: /^\d{1,15}$/,
      patternDoc: 'a numeric playlist id such as 3778678 (ids of the official charts are listed by /v2/apis/music-rank/list)',
      doc: 'Chart or playlist id.',
      example: '3778678',
    },
  },
  mode: 'scheduled',
  // The chart directory is kept warm; chart ids are fetched when first asked for and cached per id.
  schedule: '7 * * * *',
  freshness: { ttlSec: 1800, timeoutMs: 15_000, backoffCapSec: 3600 },
  headers: { referer: 'https://music.163.com/', accept: 'application/json, text/plain, */*' },
  maxKeys: 200,
  async fetch(ctx, p) {
    const res = p.id
      ? await ctx.http.request(PLAYLIST_URL, { searchParams: { id: p.id }, signal: ctx.signal })
      : await ctx.http.request(TOPLIST_URL, { signal: ctx.signal });
    if (/text\/html/i.test(String(res.headers['content-type']))) throw new SourceError('blocked', 'music.163.com answered an HTML page (risk control) instead of JSON');
    return p.id ? parseChart(res.json(), p.id) : parseCharts(res.json());
  },
  validate,
  migrate,
  view: {
    title: (d) => (isChart(d) ? `网易云音乐 · ${d[0]?.rank_name ?? ''}` : '网易云音乐排行榜'),
    columns: (_d, p) => (p.id ? { title: '歌曲', hot: '时长' } : { title: '榜单', hot: '更新频率' }),
    rows: (d) =>
      isChart(d)
        ? d.map((t) => ({
            title: t.artist.length ? `${t.title} - ${t.artist.map((a) => a.name).join('、')}` : t.title,
            link: t.link,
            ...(t.duration_desc ? { hot: t.duration_desc } : {}),
            ...(t.album.name ? { summary: `专辑：${t.album.name}` } : {}),
            ...(t.cover ? { cover: t.cover } : {}),
          }))
        : d.map((c) => ({
            title: c.name,
            link: c.link,
            ...(c.update_frequency ? { hot: c.update_frequency } : {}),
            ...(c.description ? { summary: c.description } : {}),
            ...(c.cover ? { cover: c.cover } : {}),
            ...(c.updated_at ? { date: c.updated_at } : {}),
          })),
  },
  example: '/v2/apis/music-rank/list?encoding=text',
});
