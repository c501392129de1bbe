import { list } from '../../sources/hot-news-portal-c.ts';
import { describeDeclaredList } from '../support/declared-list-suite.ts';

describeDeclaredList(list);
