import { expect, it } from 'vitest';
import { splitMoment } from '../../sources/tech-moments.ts';
import { list } from '../../sources/tech-moments.ts';
import { describeDeclaredList } from '../support/declared-list-suite.ts';

describeDeclaredList(list);

it('takes the first line of a moment as its headline', () => {
  expect(splitMoment('某公司发布新品。<br>详情如下。<br/>第二段')).toEqual({ title: '某公司发布新品', text: '详情如下。\n第二段' });
  expect(splitMoment('<p>只有一行</p>')).toEqual({ title: '只有一行', text: '' });
});
