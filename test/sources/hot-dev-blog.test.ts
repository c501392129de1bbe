import { list } from '../../sources/hot-dev-blog.ts';
import { describeDeclaredList } from '../support/declared-list-suite.ts';

describeDeclaredList(list);
