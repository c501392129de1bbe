import { list } from '../../sources/hot-dev-forum.ts';
import { describeDeclaredList } from '../support/declared-list-suite.ts';

describeDeclaredList(list);
