import { list } from '../../sources/hot-news-portal-a.ts';
import { describeDeclaredList } from '../support/declared-list-suite.ts';

describeDeclaredList(list);
