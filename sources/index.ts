/**
 * Every source, registered explicitly (type-checked, greppable, no directory scan). Adding a
 * source = one file in sources/, one line here, its fixtures and its tests.
 */
import type { AnySource } from '../src/kernel/source.ts';
import sixtySeconds from './60s.ts';
import exchangeRate from './exchange-rate.ts';
import todayInHistory from './today-in-history.ts';
import freeGames from './free-games.ts';
import wallpaperDaily from './wallpaper-daily.ts';
import aiNews from './ai-news.ts';
import weather from './weather.ts';
import lyric from './lyric.ts';
import goldPrice from './gold-price.ts';
import fuelPrice from './fuel-price.ts';
import olympics from './olympics.ts';
import hotMicroblog from './hot-microblog.ts';
import hotShortVideoA from './hot-short-video-a.ts';
import hotLifestyleA from './hot-lifestyle-a.ts';
import hotVideoSite from './hot-video-site.ts';
import hotQaSite from './hot-qa-site.ts';
import hotNewsFeed from './hot-news-feed.ts';
import searchA from './search-a.ts';
import hotSearchB from './hot-search-b.ts';
import hotCar from './hot-car.ts';
import musicRank from './music-rank.ts';
import techForum from './tech-forum.ts';
import boxofficeA from './boxoffice-a/index.ts';
import reviewA from './review-a.ts';
import qrcode from './qrcode.ts';
import fanyi from './fanyi.ts';
import fanyiLangs from './fanyi-langs.ts';
import baike from './baike.ts';
import whois from './whois/index.ts';
import ip from './ip.ts';
import og from './og.ts';
import hash from './hash.ts';
import health from './health.ts';
import password from './password.ts';
import passwordCheck from './password-check.ts';
import color from './color.ts';
import moyu from './moyu.ts';
import lunar from './lunar.ts';
import oneLiner from './one-liner.ts';
import luck from './luck.ts';
import duanzi from './duanzi.ts';
import dadJoke from './dad-joke.ts';
import fabing from './fabing.ts';
import answer from './answer.ts';
import fastFoodCopy from './fast-food-copy.ts';
import awesomeJs from './awesome-js.ts';
import changya from './changya.ts';
import timeline from './timeline.ts';
import trending from './trending.ts';
import itNews from './it-news.ts';
import itNewsRank from './it-news-rank.ts';
import olympicsEvents from './olympics-events.ts';

export const sources: readonly AnySource[] = [
  // Periodic information
  sixtySeconds,
  exchangeRate,
  todayInHistory,
  freeGames,
  wallpaperDaily,
  aiNews,
  // Hot lists and rankings
  hotMicroblog,
  hotShortVideoA,
  hotLifestyleA,
  hotVideoSite,
  hotQaSite,
  hotNewsFeed,
  searchA,
  hotSearchB,
  hotCar,
  musicRank,
  techForum,
  boxofficeA,
  reviewA,
  itNews,
  itNewsRank,
  trending,
  timeline,
  // Utilities
  qrcode,
  fanyi,
  fanyiLangs,
  baike,
  whois,
  ip,
  og,
  weather,
  lyric,
  goldPrice,
  fuelPrice,
  olympics,
  olympicsEvents,
  hash,
  health,
  password,
  passwordCheck,
  color,
  moyu,
  lunar,
  // Entertainment
  oneLiner,
  luck,
  duanzi,
  dadJoke,
  fabing,
  answer,
  fastFoodCopy,
  awesomeJs,
  changya,
];
