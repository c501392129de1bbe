/**
 * Song lyrics from QQ Music: the desktop search (`music.search.SearchCgiService`, a POST to
 * u.y.qq.com/cgi-bin/musicu.fcg) finds the best matching song, then `fcg_query_lyric_new.fcg`
 * returns its LRC text (`nobase64=1`: plain text, sometimes with HTML entities). Both refuse
 * requests without a y.qq.com Referer; the lyric endpoint then answers `code: -1310`.
 */
import { SourceError } from '../src/kernel/errors.ts';
import { missingPath, need } from '../src/kernel/json-path.ts';
import { escapeHtml, escapeMarkdown, htmlUrl, markdownUrl } from '../src/encoding/escape.ts';
import { defineSource } from '../src/kernel/source.ts';
import { formatDateTime } from '../src/kernel/time.ts';
import { asArray, asNumber, asRecord, asString, pick } from './_shared/hot-list.ts';

export const SEARCH_URL = 'https://u.y.qq.com/cgi-bin/musicu.fcg';
export const LYRIC_URL = 'https://c.y.qq.com/lyric/fcgi-bin/fcg_query_lyric_new.fcg';

export interface Song {
  mid: string;
  title: string;
  artists: string[];
  album: string;
}

export interface LyricLine {
  ms: number;
  /** `mm:ss` */
  time: string;
  /** `[mm:ss.cc]` */
  label: string;
  lyric: string;
}

export interface Lyrics extends Song {
  link: string;
  /** `[offset:]` of the LRC in ms. */
  offset: number;
  /** Whether credit, copyright and header lines were removed. */
  clean: boolean;
  lyrics: LyricLine[];
  /** The lyric lines as plain text. */
  formatted: string;
  raw_lyric: string;
  updated: string;
  updated_at: number;
}

/** The first song of a search answer. */
export function parseSearch(raw: unknown, query: string): Song {
  const r = need(raw, '', asRecord, 'a JSON object');
  const code = asNumber(r.code) ?? 0;
  const reqCode = asNumber(pick(r, 'req', 'code')) ?? 0;
  if (code !== 0 || reqCode !== 0) throw new SourceError('blocked', `search refused the request (code ${code}/${reqCode}; Referer or risk control)`);
  const list = asArray(pick(r, 'req', 'data', 'body', 'song', 'list'));
  if (!list) throw missingPath(r, 'req.data.body.song.list', 'an array');
  const song = asRecord(list[0]);
  const mid = asString(song?.mid);
  const title = asString(song?.title) || asString(song?.name);
  if (!song || !mid || !title) throw new SourceError('not_found', `No song matches "${query}". Try the song title, optionally with the singer.`);
  return {
    mid,
    title: title.trim(),
    artists: (asArray(song.singer) ?? []).map((s) => asString(asRecord(s)?.name)?.trim()).filter((s): s is string => !!s),
    album: asString(pick(song, 'album', 'name'))?.trim() ?? '',
  };
}

function decodeEntities(s: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const cp = e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1));
      return Number.isFinite(cp) && cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
    }
    return named[e.toLowerCase()] ?? m;
  });
}

// Credit lines ("作词：…", "Composer: …"), studio and copyright notes, links, separators.
const CREDIT_LABEL =
  /^[\s(（[【]*(?:作?词|作?曲|词曲|编曲|原唱|翻唱|演唱|制作人?|监制|出品人?|发行|策划|统筹|宣传|营销|文案|设计|混音|缩混|混音师|录音|录音师|录音室|母带|母带处理|和声|和音|配唱|人声|伴唱|吉他|电吉他|木吉他|贝斯|鼓|鼓手|键盘|钢琴|弦乐|弦乐编写|小提琴|大提琴|二胡|笛子|打击乐|合成器|音效|OP|SP|ISRC|lyrics?|lyricist|written by|composer|composed by|music|arrange[rd]?|arrangement|produce[rd]?|producer|production|executive producer|mix(?:ed|ing)?(?: engineer)?|master(?:ed|ing)?(?: engineer)?|recording(?: engineer)?|recorded by|vocals?|backing vocals?|guitars?|bass|drums?|keyboards?|piano|strings)\s*(?:by)?\s*[:：]/i;
const NOISE = [/未经.{0,12}(许可|授权)/, /版权所有|著作权|©|℗/, /https?:\/\/|www\./i, /^[-—=_~*·.\s/]+$/, /^\/\/$/];

function isCredit(text: string): boolean {
  return CREDIT_LABEL.test(text) || NOISE.some((re) => re.test(text));
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Parse LRC text into timed lines (several time tags on one line give several lines). */
export function parseLrc(lrc: string, song: Song, clean: boolean): { offset: number; lines: LyricLine[] } {
  let offset = 0;
  const lines: LyricLine[] = [];
  for (const rawLine of decodeEntities(lrc).split(/\r?\n/)) {
    const meta = /^\[(ti|ar|al|by|offset|length|re|ve):(.*)\]\s*$/i.exec(rawLine.trim());
    if (meta) {
      if (meta[1]!.toLowerCase() === 'offset') offset = Number.parseInt(meta[2]!, 10) || 0;
      continue;
    }
    const stamps: number[] = [];
    let rest = rawLine.trim();
    for (let m = /^\[(\d{1,3}):(\d{1,2})(?:[.:](\d{1,3}))?\]/.exec(rest); m; m = /^\[(\d{1,3}):(\d{1,2})(?:[.:](\d{1,3}))?\]/.exec(rest)) {
      const frac = m[3] ? Number(m[3].padEnd(3, '0')) : 0;
      stamps.push(Number(m[1]) * 60_000 + Number(m[2]) * 1000 + frac);
      rest = rest.slice(m[0].length);
    }
    const text = rest.trim();
    if (!stamps.length || !text) continue;
    for (const ms of stamps) {
      const centis = Math.floor((ms % 1000) / 10);
      lines.push({ ms, time: `${pad(Math.floor(ms / 60_000))}:${pad(Math.floor(ms / 1000) % 60)}`, label: `[${pad(Math.floor(ms / 60_000))}:${pad(Math.floor(ms / 1000) % 60)}.${pad(centis)}]`, lyric: text });
    }
  }
  lines.sort((a, b) => a.ms - b.ms);
  if (!clean) return { offset, lines };
  const kept = lines.filter((l) => !isCredit(l.lyric));
  // The first line often repeats "title - singer".
  const first = kept[0]?.lyric.replace(/\s+/g, '');
  if (first && first.startsWith(song.title.replace(/\s+/g, '')) && /[-－—]/.test(kept[0]!.lyric)) kept.shift();
  return { offset, lines: kept };
}

export function parse(searchRaw: unknown, lyricRaw: unknown, query: string, clean: boolean, now: Date): Lyrics {
  const song = parseSearch(searchRaw, query);
  const r = need(lyricRaw, '', asRecord, 'a JSON object');
  const code = asNumber(r.code) ?? asNumber(r.retcode) ?? 0;
  if (code === -1310) throw new SourceError('blocked', 'lyric service answered -1310 (missing Referer or risk control)');
  if (code !== 0) throw new SourceError('transient', `lyric service answered code ${code}`);
  if (typeof r.lyric !== 'string') throw missingPath(r, 'lyric', 'a string');
  const lrc = r.lyric;
  const { offset, lines } = parseLrc(lrc, song, clean);
  if (!lines.length) throw new SourceError('not_found', `"${song.title}" (${song.artists.join(' / ') || 'unknown singer'}) has no lyrics on QQ Music.`);
  const at = now.getTime();
  return {
    ...song,
    link: `https://y.qq.com/n/ryqq/songDetail/${song.mid}`,
    offset,
    clean,
    lyrics: lines,
    formatted: lines.map((l) => l.lyric).join('\n'),
    raw_lyric: lrc,
    updated: formatDateTime(at),
    updated_at: at,
  };
}

export function validateLyrics(d: Lyrics): string | undefined {
  if (!d.title || !d.lyrics.length) return 'no title or no lyric lines';
  return d.lyrics.some((l, i) => i > 0 && l.ms < d.lyrics[i - 1]!.ms) ? 'lyric lines are out of order' : undefined;
}

const byline = (d: Lyrics) => [d.artists.length ? `演唱：${d.artists.join(' / ')}` : '', d.album ? `专辑：${d.album}` : ''].filter(Boolean).join('  ');

export default defineSource({
  id: 'lyric',
  name: '歌词搜索',
  description: 'Lyrics of the best matching song on QQ Music, as timed lines and plain text; credit and copyright lines are removed unless `clean=false`.',
  homepage: 'https://y.qq.com/',
  routes: [{ path: '/lyric', methods: ['GET', 'POST'] }],
  params: {
    query: { type: 'string', required: true, maxLength: 100, doc: 'Song title, optionally with the singer (URL-encode Chinese characters).', example: '晴天 周杰伦' },
    clean: { type: 'boolean', default: true, doc: 'Remove credit lines (lyricist, composer, studio…), copyright notes and the title line; false keeps every line.' },
  },
  mode: 'on-demand',
  freshness: { ttlSec: 7 * 86_400, backoffCapSec: 3600 },
  headers: { referer: 'https://y.qq.com/', origin: 'https://y.qq.com' },
  async fetch(ctx, params) {
    const search = await ctx.http.json(SEARCH_URL, {
      method: 'POST',
      signal: ctx.signal,
      json: {
        comm: { ct: 19, cv: 1873, uin: '0' },
        req: { module: 'music.search.SearchCgiService', method: 'DoSearchForQQMusicDesktop', param: { query: params.query, num_per_page: 1, page_num: 1, search_type: 0 } },
      },
    });
    const song = parseSearch(search, params.query);
    const lyric = await ctx.http.json(LYRIC_URL, { signal: ctx.signal, searchParams: { format: 'json', nobase64: 1, type: 1, songmid: song.mid } });
    return parse(search, lyric, params.query, params.clean, ctx.now());
  },
  validate: validateLyrics,
  count: (d) => d.lyrics.length,
  view: {
    title: (d) => d.title,
    text: (d) => `${d.title}${d.artists.length ? ` - ${d.artists.join(' / ')}` : ''}\n\n${d.formatted}\n`,
    markdown: (d) => `# ${escapeMarkdown(d.title)}\n\n> ${escapeMarkdown(byline(d))}\n\n---\n\n${d.lyrics.map((l) => `${escapeMarkdown(l.lyric)}  `).join('\n')}\n\n[QQ 音乐](${markdownUrl(d.link)})\n`,
    htmlBody: (d) =>
      [`<p class="s">${escapeHtml(byline(d))}</p>`, `<div>${d.lyrics.map((l) => `<p data-ms="${l.ms}">${escapeHtml(l.lyric)}</p>`).join('\n')}</div>`, `<p><a href="${htmlUrl(d.link)}">QQ 音乐</a></p>`].join('\n'),
    encodings: ['json', 'text', 'markdown', 'html'],
  },
  example: '/v2/apis/lyric?query=%E6%99%B4%E5%A4%A9&encoding=text',
});
