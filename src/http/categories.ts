/**
 * The catalogue categories of the interface spec (spec/interface.md, "Aggregate endpoints"), by
 * source id (or the first segment of its route). Used to group the OpenAPI tags and the README tables; a source missing here is
 * listed under "Other" until it is added.
 */

export const CATEGORIES = ['Periodic information', 'Hot lists and rankings', 'Utilities', 'Entertainment', 'Other'] as const;
export type Category = (typeof CATEGORIES)[number];

const BY_SOURCE: Readonly<Record<string, Category>> = {
  '60s': 'Periodic information',
  'ai-news': 'Periodic information',
  'wallpaper-daily': 'Periodic information',
  'exchange-rate': 'Periodic information',
  'today-in-history': 'Periodic information',
  'free-games': 'Periodic information',

  'hot-short-video-a': 'Hot lists and rankings',
  'hot-short-video-b': 'Hot lists and rankings',
  'game-media-feed': 'Hot lists and rankings',
  'hot-app-community': 'Hot lists and rankings',
  'hot-campus-forum': 'Hot lists and rankings',
  'hot-lifestyle-a': 'Hot lists and rankings',
  'hot-microblog': 'Hot lists and rankings',
  'hot-video-site': 'Hot lists and rankings',
  'hot-qa-site': 'Hot lists and rankings',
  'hot-news-feed': 'Hot lists and rankings',
  'search-a': 'Hot lists and rankings',
  'hot-search-b': 'Hot lists and rankings',
  'hot-car': 'Hot lists and rankings',
  'music-rank': 'Hot lists and rankings',
  'tech-forum': 'Hot lists and rankings',
  'boxoffice-a': 'Hot lists and rankings',
  'review-a': 'Hot lists and rankings',
  'video-site-rank': 'Hot lists and rankings',
  'hot-business-news': 'Hot lists and rankings',
  'hot-digital-life': 'Hot lists and rankings',
  'hot-it-news': 'Hot lists and rankings',
  'it-news': 'Hot lists and rankings',
  'it-news-rank': 'Hot lists and rankings',
  'hot-news-paper': 'Hot lists and rankings',
  'hot-dev-community': 'Hot lists and rankings',
  'hot-news-portal-a': 'Hot lists and rankings',
  'hot-news-portal-b': 'Hot lists and rankings',
  'hot-news-portal-c': 'Hot lists and rankings',
  'review-a-chart': 'Hot lists and rankings',
  'review-a-groups': 'Hot lists and rankings',
  'game-news-a': 'Hot lists and rankings',
  'game-news-b': 'Hot lists and rankings',
  'game-news-c': 'Hot lists and rankings',
  'book-rank-a': 'Hot lists and rankings',
  'hot-game-forum': 'Hot lists and rankings',
  'hot-sports-forum': 'Hot lists and rankings',
  'hot-dev-forum': 'Hot lists and rankings',
  'hot-open-source': 'Hot lists and rankings',
  'hot-writing-community': 'Hot lists and rankings',
  'qa-site-daily': 'Hot lists and rankings',
  'code-trending': 'Hot lists and rankings',
  'hot-dev-blog': 'Hot lists and rankings',
  'video-site-b-rank': 'Hot lists and rankings',
  'tech-moments': 'Hot lists and rankings',
  'tech-flash-news': 'Hot lists and rankings',
  'game-news-d': 'Hot lists and rankings',
  'hot-shopping-deals': 'Hot lists and rankings',
  'hot-tech-park': 'Hot lists and rankings',
  'hot-science': 'Hot lists and rankings',
  'hot-digital-gear': 'Hot lists and rankings',
  trending: 'Hot lists and rankings',
  timeline: 'Hot lists and rankings',

  weather: 'Utilities',
  moyu: 'Utilities',
  lyric: 'Utilities',
  fanyi: 'Utilities',
  baike: 'Utilities',
  whois: 'Utilities',
  qrcode: 'Utilities',
  ip: 'Utilities',
  og: 'Utilities',
  hash: 'Utilities',
  health: 'Utilities',
  password: 'Utilities',
  color: 'Utilities',
  'gold-price': 'Utilities',
  'fuel-price': 'Utilities',
  olympics: 'Utilities',
  lunar: 'Utilities',

  'one-liner': 'Entertainment',
  luck: 'Entertainment',
  duanzi: 'Entertainment',
  'dad-joke': 'Entertainment',
  fabing: 'Entertainment',
  answer: 'Entertainment',
  'fast-food-copy': 'Entertainment',
  'awesome-js': 'Entertainment',
  changya: 'Entertainment',
};

/** By source id, else by the first path segment of its first route (`/password/check` → password). */
export function categoryOf(source: { id: string; routes: readonly { path: string }[] }): Category {
  const segment = source.routes[0]?.path.split('/')[1] ?? '';
  return BY_SOURCE[source.id] ?? BY_SOURCE[segment] ?? 'Other';
}
