/** The languages /v2/apis/fanyi accepts (bundled list, data/fanyi-langs.json), computed locally. */
import { escapeHtml } from '../src/encoding/escape.ts';
import { htmlPage } from '../src/encoding/generic.ts';
import { defineSource } from '../src/kernel/source.ts';
import { LANGUAGES, type Language } from './fanyi.ts';

export interface LanguageList {
  list: readonly Language[];
  total: number;
}

export default defineSource({
  id: 'fanyi-langs',
  name: '翻译支持的语言',
  description: 'The 109 languages accepted by /v2/apis/fanyi as `from` and `to`: code, Chinese name and English name.',
  routes: [{ path: '/fanyi/langs', methods: ['GET', 'POST'] }],
  mode: 'local',
  compute: (): LanguageList => ({ list: LANGUAGES, total: LANGUAGES.length }),
  view: {
    title: () => '翻译支持的语言',
    text: (d) => `${d.list.map((l) => `${l.code}\t${l.label}\t${l.name}`).join('\n')}\n`,
    markdown: (d) => `# 翻译支持的语言（${d.total}）\n\n| code | 名称 | name |\n| --- | --- | --- |\n${d.list.map((l) => `| ${l.code} | ${l.label} | ${l.name} |`).join('\n')}\n`,
    html: (d) =>
      htmlPage(
        '翻译支持的语言',
        `<h1>翻译支持的语言（${d.total}）</h1>\n<table><thead><tr><th>code</th><th>名称</th><th>name</th></tr></thead><tbody>\n${d.list
          .map((l) => `<tr><td>${escapeHtml(l.code)}</td><td>${escapeHtml(l.label)}</td><td>${escapeHtml(l.name)}</td></tr>`)
          .join('\n')}\n</tbody></table>`,
      ),
  },
  example: '/v2/apis/fanyi/langs?encoding=text',
});
