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
import hotShortVideoB from './hot-short-video-b.ts';
import gameMediaFeed from './game-media-feed.ts';
import hotAppCommunity from './hot-app-community.ts';
import hotCampusForum from './hot-campus-forum.ts';
import newsPortalCRank from './news-portal-c-rank.ts';
import weatherAlarmFeed from './weather-alarm-feed.ts';
import gameGiveawayNews from './game-giveaway-news.ts';
import gameIndustryNews from './game-industry-news.ts';
import earthquakeFeed from './earthquake-feed.ts';
import serverForumFeed from './server-forum-feed.ts';
import hotLinuxForum from './hot-linux-forum.ts';
import intlNewspaperFeed from './intl-newspaper-feed.ts';
import hotHostingForum from './hot-hosting-forum.ts';
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
import videoSiteRank from './video-site-rank.ts';
import hotBusinessNews from './hot-business-news.ts';
import hotDigitalLife from './hot-digital-life.ts';
import hotNewsPaper from './hot-news-paper.ts';
import hotDevCommunity from './hot-dev-community.ts';
import hotNewsPortalA from './hot-news-portal-a.ts';
import hotNewsPortalB from './hot-news-portal-b.ts';
import hotNewsPortalC from './hot-news-portal-c.ts';
import reviewAChart from './review-a-chart.ts';
import reviewAGroups from './review-a-groups.ts';
import gameNewsA from './game-news-a.ts';
import gameNewsB from './game-news-b.ts';
import gameNewsC from './game-news-c.ts';
import bookRankA from './book-rank-a.ts';
import hotGameForum from './hot-game-forum.ts';
import hotSportsForum from './hot-sports-forum.ts';
import hotDevForum from './hot-dev-forum.ts';
import hotOpenSource from './hot-open-source.ts';
import hotWritingCommunity from './hot-writing-community.ts';
import qaSiteDaily from './qa-site-daily.ts';
import codeTrending from './code-trending.ts';
import hotDevBlog from './hot-dev-blog.ts';
import videoSiteBRank from './video-site-b-rank.ts';
import techMoments from './tech-moments.ts';
import techFlashNews from './tech-flash-news.ts';
import gameNewsD from './game-news-d.ts';
import hotShoppingDeals from './hot-shopping-deals.ts';
import hotTechPark from './hot-tech-park.ts';
import hotScience from './hot-science.ts';
import hotDigitalGear from './hot-digital-gear.ts';
import hotProductLaunch from './hot-product-launch.ts';
import hotReverseForum from './hot-reverse-forum.ts';
import gameCommunityNews from './game-community-news.ts';
import hotItCommunity from './hot-it-community.ts';

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
  hotShortVideoB,
  gameMediaFeed,
  hotAppCommunity,
  hotCampusForum,
  newsPortalCRank,
  weatherAlarmFeed,
  gameGiveawayNews,
  gameIndustryNews,
  earthquakeFeed,
  serverForumFeed,
  hotLinuxForum,
  intlNewspaperFeed,
  hotHostingForum,
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
  videoSiteRank,
  hotBusinessNews,
  hotDigitalLife,
  hotNewsPaper,
  hotDevCommunity,
  hotNewsPortalA,
  hotNewsPortalB,
  hotNewsPortalC,
  reviewAChart,
  reviewAGroups,
  gameNewsA,
  gameNewsB,
  gameNewsC,
  bookRankA,
  hotGameForum,
  hotSportsForum,
  hotDevForum,
  hotOpenSource,
  hotWritingCommunity,
  qaSiteDaily,
  codeTrending,
  hotDevBlog,
  videoSiteBRank,
  techMoments,
  techFlashNews,
  gameNewsD,
  hotShoppingDeals,
  hotTechPark,
  hotScience,
  hotDigitalGear,
  hotProductLaunch,
  hotReverseForum,
  gameCommunityNews,
  hotItCommunity,
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
