/**
 * The Olympic Games `/v2/apis/olympics?id=` knows (data/olympics-events.json, written for this
 * project), in the layout of 60s's `/v2/olympics/events`: 60s answers that route from a list it
 * bundles too (taken from olympics.com's site menu), so this is a local endpoint like 60s's.
 */
import { defineSource, type Row } from '../src/kernel/source.ts';
import { EVENTS } from './olympics.ts';

export interface OlympicGames {
  /** `Summer` or `Winter`, as 60s writes it. */
  season: string;
  /** The Games' page on olympics.com. */
  url: string;
  /** 60s's logo URL; our list has no logos, so always ''. */
  imageurl: string;
  /** The id `/v2/apis/olympics?id=` takes. */
  slug: string;
  title: string;
  /** The year as text, as 60s writes it. */
  year: string;
  name_en: string;
  host_city: string;
  start_date: string;
  end_date: string;
}

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Every Games of the list, newest first. */
export function olympicGames(): OlympicGames[] {
  return [...EVENTS]
    .sort((a, b) => (a.start_date < b.start_date ? 1 : -1))
    .map((e) => ({
      season: capitalized(e.season),
      url: `https://www.olympics.com/zh/olympic-games/${e.id}/`,
      imageurl: '',
      slug: e.id,
      title: e.name,
      year: String(e.year),
      name_en: e.name_en,
      host_city: e.host_city,
      start_date: e.start_date,
      end_date: e.end_date,
    }));
}

export default defineSource({
  id: 'olympics-events',
  name: '奥运会列表',
  description: 'The Olympic Games whose medal tables /v2/apis/olympics answers (its `id` is each one\'s `slug`), newest first: season, name, year, host city and dates.',
  homepage: 'https://www.olympics.com/zh/olympic-games',
  routes: [{ path: '/olympics/events' }],
  mode: 'local',
  compute: () => olympicGames(),
  view: {
    title: () => '奥运会列表',
    columns: () => ({ title: '奥运会', hot: 'id' }),
    rows: (d): Row[] => d.map((g) => ({ title: g.title, link: g.url, hot: g.slug, summary: `${g.start_date} 至 ${g.end_date} · ${g.host_city}` })),
    encodings: ['json', 'text', 'markdown', 'html'],
  },
  example: '/v2/apis/olympics/events?encoding=text',
});
