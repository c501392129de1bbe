import { list } from '../../sources/hot-shopping-deals.ts';
import { describeDeclaredList } from '../support/declared-list-suite.ts';

describeDeclaredList(list);
