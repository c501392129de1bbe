/**
 * The languages /v2/apis/fanyi accepts (bundled list, data/fanyi-langs.json), computed locally.
 * 60s's shape: a bare array of `{code, label, alphabet}`, `alphabet` being the pinyin initial of
 * the Chinese name (from the pinyin collation of ICU, which Node ships), with our English `name`.
 */
import { escapeHtml } from '../src/encoding/escape.ts';
import { defineSource } from '../src/kernel/source.ts';
import { LANGUAGES, type Language } from './fanyi.ts';

export interface ListedLanguage extends Language {
  /** Pinyin initial of the Chinese name, `A`–`Z`. */
  alphabet: string;
}

let pinyin: Intl.Collator | undefined;
// The first character (in pinyin order) of each initial; no syllable starts with I, U or V.
const FIRSTS = '阿八嚓哒妸发旮哈讥咔垃妈拏噢妑七呥仨他穵夕丫帀';
const INITIALS = 'ABCDEFGHJKLMNOPQRSTWXYZ';

/** Pinyin initial of a Chinese name (a Latin first letter is its own initial). */
export function pinyinInitial(name: string): string {
  const first = name.trim()[0] ?? '';
  if (/[A-Za-z]/.test(first)) return first.toUpperCase();
  for (let i = INITIALS.length - 1; i >= 0; i--) if ((pinyin ??= new Intl.Collator('zh-Hans-CN-u-co-pinyin')).compare(first, FIRSTS[i] as string) >= 0) return INITIALS[i] as string;
  return '#';
}

// Built on the first request, not at start-up: the pinyin collator and 109 comparisons cost milliseconds.
let listed: readonly ListedLanguage[] | undefined;
const listedLanguages = (): readonly ListedLanguage[] => (listed ??= LANGUAGES.map((l) => ({ ...l, alphabet: pinyinInitial(l.label) })));

export default defineSource({
  id: 'fanyi-langs',
  name: '翻译支持的语言',
  description: 'The 109 languages accepted by /v2/apis/fanyi as `from` and `to`: code, Chinese name, its pinyin initial and English name.',
  routes: [{ path: '/fanyi/langs', methods: ['GET', 'POST'] }],
  mode: 'local',
  compute: listedLanguages,
  view: {
    title: (d) => `翻译支持的语言（${d.length}）`,
    text: (d) => `${d.map((l) => `${l.code}\t${l.label}\t${l.name}`).join('\n')}\n`,
    markdown: (d) => `# 翻译支持的语言（${d.length}）\n\n| code | 名称 | name |\n| --- | --- | --- |\n${d.map((l) => `| ${l.code} | ${l.label} | ${l.name} |`).join('\n')}\n`,
    htmlBody: (d) =>
      `<table><thead><tr><th>代码</th><th>名称</th><th>英文名称</th></tr></thead><tbody>\n${d
        .map((l) => `<tr><td>${escapeHtml(l.code)}</td><td>${escapeHtml(l.label)}</td><td>${escapeHtml(l.name)}</td></tr>`)
        .join('\n')}\n</tbody></table>`,
  },
  example: '/v2/apis/fanyi/langs?encoding=text',
});
