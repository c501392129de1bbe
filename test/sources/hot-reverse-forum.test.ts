import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { parseDeclared } from '../../sources/_shared/declared-list.ts';
import { list } from '../../sources/hot-reverse-forum.ts';
import { describeDeclaredList, readFixture } from '../support/declared-list-suite.ts';
import { FIXTURE_DIR } from '../support/upstream.ts';

// The suite serves the GBK feed as the board does, its charset named only by the XML declaration.
describeDeclaredList(list);

it('hot-reverse-forum reads the GBK feed once decoded by its declaration: the author, the excerpt, the time', () => {
  expect(fs.readFileSync(path.join(FIXTURE_DIR, 'www.52pojie.cn/forum.php.xml')).includes(Buffer.from('吾爱破解'))).toBe(false); // not UTF-8 on disk
  const [first] = parseDeclared(list, readFixture('www.52pojie.cn/forum.php.xml'));
  expect(first).toMatchObject({ title: '[原创] 某安卓应用的协议分析笔记', author: 'pj0', desc: '分析过程与工具链整理。', published_at: Date.UTC(2026, 10, 21, 1, 10) });
});
