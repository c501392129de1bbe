import { list } from '../../sources/hot-news-portal-b.ts';
import { describeDeclaredList } from '../support/declared-list-suite.ts';

describeDeclaredList(list);
