/** Password strength check (/password/check); the analysis and its documented rules live in password.ts. */
import { escapeMarkdown } from '../src/encoding/escape.ts';
import { defineSource } from '../src/kernel/source.ts';
import { checkPassword, MAX_LENGTH } from './password.ts';

export default defineSource({
  id: 'password-check',
  name: '密码强度检测',
  description: 'Checks the strength of a password: entropy, character classes, sequences and repeats, a common-password list, a 0–100 score with a label, crack time and recommendations. Nothing is stored or logged.',
  routes: [{ path: '/password/check' }],
  params: {
    password: { type: 'string', required: true, trim: false, maxLength: MAX_LENGTH, doc: `The password to check (at most ${MAX_LENGTH} characters; white space counts).`, example: 'Tr0ub4dor&3' },
  },
  mode: 'local',
  compute: (_ctx, p) => checkPassword(p.password),
  view: {
    title: () => '密码强度检测',
    text: (d) =>
      [
        `密码强度：${d.strength}（${d.strength_en}），得分 ${d.score}/100`,
        `长度 ${d.length}，熵 ${d.entropy_bits} bits，暴力破解时间 ${d.crack_time}`,
        `字符类型：${[d.has_lowercase && '小写', d.has_uppercase && '大写', d.has_numbers && '数字', d.has_symbols && '符号', d.has_other && '其他'].filter(Boolean).join('、') || '无'}`,
        ...(d.is_common ? ['⚠ 常见密码'] : []),
        '',
        '建议：',
        ...d.recommendations.map((r) => `- ${r}`),
        '',
      ].join('\n'),
    markdown: (d) =>
      [
        '# 密码强度检测',
        '',
        `**${d.strength}**（${d.strength_en}） · 得分 **${d.score}**/100`,
        '',
        '| 项目 | 结果 |',
        '| --- | --- |',
        `| 长度 | ${d.length} |`,
        `| 熵 | ${d.entropy_bits} bits |`,
        `| 破解时间 | ${escapeMarkdown(d.crack_time)} |`,
        `| 常见密码 | ${d.is_common ? '是' : '否'} |`,
        `| 连续字符 | ${d.has_sequential ? escapeMarkdown(d.sequences.join(', ')) : '无'} |`,
        `| 重复 | ${d.has_repeated || d.has_repeated_pattern ? '有' : '无'} |`,
        '',
        '## 建议',
        '',
        ...d.recommendations.map((r) => `- ${escapeMarkdown(r)}`),
        '',
      ].join('\n'),
  },
  example: '/v2/apis/password/check?password=Tr0ub4dor%263',
});
