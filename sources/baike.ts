/**
 * Encyclopedia entries from Baidu Baike's lemma-card API (the JSON behind its search cards):
 * https://baike.baidu.com/api/openapi/BaikeLemmaCardApi?appid=379020&bk_key=<word>. A known
 * word answers an object with `title`, `desc`, `abstract`, `image`, `url`, `card` (the info
 * box) and `hasOther` (other meanings exist); an unknown word answers an object without a
 * title (`{"errno": …}` or `{}`). Under risk control the host answers an HTML check page.
 */
import { escapeHtml, escapeMarkdown, markdownUrl, htmlUrl } from '../src/encoding/escape.ts';
import { SourceError } from '../src/kernel/errors.ts';
import { need } from '../src/kernel/json-path.ts';
import { defineSource } from '../src/kernel/source.ts';
import { formatDateTime } from '../src/kernel/time.ts';
import { asArray, asNumber, asRecord, asString } from './_shared/hot-list.ts';

export const UPSTREAM_URL = 'https://baike.baidu.com/api/openapi/BaikeLemmaCardApi';

export interface BaikeFact {
  name: string;
  value: string;
}

export interface BaikeEntry {
  title: string;
  /** The short qualifier of this meaning, e.g. 中国古代军事防御工程. */
  description: string;
  abstract: string;
  /** Empty when the entry has no picture. */
  cover: string;
  link: string;
  /** The word has other meanings (other entries of the same name). */
  has_other: boolean;
  /** The info box: name and value pairs. */
  basic_info: BaikeFact[];
  lemma_id: number | null;
  updated: string;
  updated_at: number;
}

function https(url: string | undefined): string | undefined {
  const u = url?.trim();
  if (!u) return undefined;
  if (u.startsWith('//')) return `https:${u}`;
  return u.replace(/^http:\/\//i, 'https://');
}

function plain(text: string): string {
  return text
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/[ \t]+/g, ' ')
    .trim();
}

export function parse(raw: unknown, word: string, now: Date): BaikeEntry {
  if (Array.isArray(raw) && raw.length === 0) throw new SourceError('not_found', `Baidu Baike has no entry for "${word}"`);
  const r = need(raw, '', asRecord, 'a JSON object');
  const title = asString(r.title)?.trim();
  if (!title) {
    if (r.errno !== undefined || Object.keys(r).length === 0) throw new SourceError('not_found', `Baidu Baike has no entry for "${word}"`);
    throw new SourceError('parse', `answer has neither a title nor an errno (keys: ${Object.keys(r).slice(0, 8).join(', ')})`);
  }
  const facts: BaikeFact[] = [];
  for (const c of asArray(r.card) ?? []) {
    const card = asRecord(c);
    const name = asString(card?.name)?.trim();
    const values = (asArray(card?.value) ?? [card?.value]).map((v) => plain(asString(v) ?? '')).filter(Boolean);
    if (name && values.length) facts.push({ name, value: values.join('、') });
  }
  const link = https(asString(r.url));
  const at = now.getTime();
  return {
    title,
    description: plain(asString(r.desc) ?? ''),
    abstract: plain(asString(r.abstract) ?? ''),
    cover: https(asString(r.image)) ?? '',
    link: link && /^https:\/\//.test(link) ? link : `https://baike.baidu.com/item/${encodeURIComponent(title)}`,
    has_other: asNumber(r.hasOther) === 1 || r.hasOther === true,
    basic_info: facts,
    lemma_id: asNumber(r.id) ?? null,
    updated: formatDateTime(at),
    updated_at: at,
  };
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n');
}

export default defineSource({
  id: 'baike',
  name: '百度百科',
  description: 'The encyclopedia entry for a word: title, qualifier, abstract, cover, info box and link. 404 when there is no entry.',
  homepage: 'https://baike.baidu.com/',
  routes: [{ path: '/baike' }],
  params: {
    word: { type: 'string', required: true, maxLength: 100, doc: 'Entry name, e.g. 长城.', example: '长城' },
  },
  mode: 'on-demand',
  freshness: { ttlSec: 86_400, timeoutMs: 15_000, backoffCapSec: 900 },
  maxKeys: 2000,
  headers: { referer: 'https://baike.baidu.com/', accept: 'application/json, text/javascript, */*; q=0.01' },
  async fetch(ctx, p) {
    const res = await ctx.http.request(UPSTREAM_URL, {
      searchParams: { scope: 103, format: 'json', appid: 379020, bk_key: p.word, bk_length: 600 },
      signal: ctx.signal,
    });
    const type = String(res.headers['content-type'] ?? '');
    if (/html/i.test(type) || /^\s*</.test(res.body.subarray(0, 64).toString('latin1'))) {
      throw new SourceError('blocked', 'baike.baidu.com answered an HTML page (security check or login) instead of JSON');
    }
    return parse(res.json(), p.word, ctx.now());
  },
  // Stored before 60s's shape (release 271b638), a missing cover was null.
  migrate: (stored: unknown) => {
    const d = stored as BaikeEntry | null;
    if (!d || typeof d !== 'object' || d.cover !== null) return d ?? undefined;
    return { ...d, cover: '' };
  },
  validate(d: BaikeEntry) {
    if (!d.title) return 'the entry has no title';
    if (!d.abstract && !d.description) return 'the entry has neither an abstract nor a description';
    return undefined;
  },
  count: () => 1,
  view: {
    title: (d: BaikeEntry) => d.title,
    text: (d) => `${d.title}${d.description ? `（${d.description}）` : ''}：${d.abstract || d.description}\n详情：${d.link}\n`,
    markdown(d) {
      const parts = [`# ${escapeMarkdown(d.title)}`, ''];
      if (d.description) parts.push(quote(d.description), '');
      if (d.cover) parts.push(`![${escapeMarkdown(d.title)}](${markdownUrl(d.cover)})`, '');
      if (d.abstract) parts.push('## 摘要', '', d.abstract, '');
      if (d.basic_info.length) parts.push('## 基本信息', '', '| 项目 | 内容 |', '| --- | --- |', ...d.basic_info.map((f) => `| ${escapeMarkdown(f.name)} | ${escapeMarkdown(f.value)} |`), '');
      if (d.has_other) parts.push(`_「${d.title}」还有其他义项，详见百科页面。_`, '');
      parts.push(`[查看百度百科词条](${markdownUrl(d.link)})`);
      return `${parts.join('\n')}\n`;
    },
    htmlBody(d) {
      const parts: string[] = [];
      if (d.description) parts.push(`<p class="s">${escapeHtml(d.description)}</p>`);
      if (d.cover) parts.push(`<p><img src="${htmlUrl(d.cover)}" alt="${escapeHtml(d.title)}" referrerpolicy="no-referrer"></p>`);
      if (d.abstract) parts.push(`<p>${escapeHtml(d.abstract)}</p>`);
      if (d.basic_info.length) parts.push(`<table><tbody>${d.basic_info.map((f) => `<tr><th>${escapeHtml(f.name)}</th><td>${escapeHtml(f.value)}</td></tr>`).join('')}</tbody></table>`);
      if (d.has_other) parts.push(`<p class="s">「${escapeHtml(d.title)}」还有其他义项。</p>`);
      parts.push(`<p><a href="${htmlUrl(d.link)}" rel="noopener noreferrer">查看百度百科词条</a></p>`);
      return parts.join('\n');
    },
  },
  example: '/v2/apis/baike?word=%E9%95%BF%E5%9F%8E&encoding=text',
});
