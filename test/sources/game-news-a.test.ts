import { list } from '../../sources/game-news-a.ts';
import { describeDeclaredList } from '../support/declared-list-suite.ts';

describeDeclaredList(list);
