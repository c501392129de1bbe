import { list } from '../../sources/hot-tech-park.ts';
import { describeDeclaredList } from '../support/declared-list-suite.ts';

describeDeclaredList(list);
