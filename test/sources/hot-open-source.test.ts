import { list } from '../../sources/hot-open-source.ts';
import { describeDeclaredList } from '../support/declared-list-suite.ts';

describeDeclaredList(list);
