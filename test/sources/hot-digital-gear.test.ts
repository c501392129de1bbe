import { list } from '../../sources/hot-digital-gear.ts';
import { describeDeclaredList } from '../support/declared-list-suite.ts';

describeDeclaredList(list);
