import { list } from '../../sources/video-site-b-rank.ts';
import { describeDeclaredList } from '../support/declared-list-suite.ts';

describeDeclaredList(list);
