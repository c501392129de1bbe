import { list } from '../../sources/hot-sports-forum.ts';
import { describeDeclaredList } from '../support/declared-list-suite.ts';

describeDeclaredList(list);
