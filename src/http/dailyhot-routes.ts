/**
 * The route names of imsyy/DailyHotApi that `/dailyhot/<name>` answers, each mapped to one of our
 * stored lists (facts from its `src/routes/<name>.ts`: the `title`, `type`, `description` and
 * `link` it answers with, and the `type` values a route takes). Its names are also aliases of our
 * neutral paths under /v2/apis (`/v2/apis/thepaper` is `/v2/apis/hot-news-paper`; see
 * sixty-aliases.ts), where no 60s path of the same name exists. `types` lists the `type` values we serve, the
 * route's default first; a value we do not serve is a 400 naming the ones we do.
 */
import { badParam } from '../kernel/errors.ts';
import { formatDate, isIsoDate } from '../kernel/time.ts';
import type { Variants } from '../../sources/_shared/declared-list.ts';
import { GAMES, KINDS } from '../../sources/game-community-news.ts';
import { list as bilibiliRank } from '../../sources/video-site-rank.ts';
import { list as sinaRank } from '../../sources/news-portal-c-rank.ts';
import { list as nytimesFeed } from '../../sources/intl-newspaper-feed.ts';
import { list as hostlocGuide } from '../../sources/hot-hosting-forum.ts';
import { list as krRank } from '../../sources/hot-business-news.ts';
import { list as wereadRank } from '../../sources/book-rank-a.ts';
import { list as pojieGuide } from '../../sources/hot-reverse-forum.ts';

/** One list of a route: DailyHotApi's `type` text for it, our parameters, and its `title` where the list changes it. */
export interface DailyHotVariant {
  label: string;
  title?: string;
  params?: Readonly<Record<string, string>>;
}

/** Reads one query parameter of the request (its first value). */
export type QueryReader = (name: string) => string | undefined;

export interface DailyHotRoute {
  /** DailyHotApi's route name, e.g. `qq-news`. */
  name: string;
  title: string;
  description?: string;
  link: string;
  /** Our source id. */
  source: string;
  /**
   * Our route (under /v2/apis): `/v2/apis/<name>` is an alias of it, its path parameters filled
   * from the default variant's params (`/tech-forum/:type` with `type: top`).
   */
  path: string;
  /** The query parameter DailyHotApi names the variant by, where it is not `type` (HelloGitHub's `sort`). */
  typeParam?: string;
  /** `type` value → DailyHotApi's `type` text for it and our parameters (e.g. a board). */
  types: Readonly<Record<string, DailyHotVariant>>;
  /** DailyHotApi's `params` of the answer: the route's options and what they mean. */
  options?: Readonly<Record<string, unknown>>;
  /**
   * For a route whose options are not one `type` (history's `month` and `day`, miyoushe's `game`
   * and `type`): the variant the query picks (`types` is then unused); a bad value is a 400 naming it.
   */
  pick?(query: QueryReader, nowMs: number): DailyHotVariant;
}

const only = (label: string) => ({ default: { label } });

/**
 * A route's `type` values read from the declared list's variants, where DailyHotApi's are ours:
 * its `type` text for each is the variant's name (after `prefix`), the default needs no parameter.
 */
function typesOf(variants: Variants | readonly Variants[] | undefined, prefix = ''): Record<string, DailyHotVariant> {
  if (!variants || !('param' in variants)) throw new Error('typesOf needs a list with one variant parameter');
  const [first] = Object.keys(variants.values);
  return Object.fromEntries(Object.entries(variants.values).map(([value, name]) => [value, { label: `${prefix}${name}`, ...(value === first ? {} : { params: { [variants.param]: value } }) }]));
}

/** miyoushe's games by `gids`, as its `game` option names them. */
const GAME_NAMES = Object.fromEntries(Object.entries(GAMES).map(([gid, g]) => [gid, g.name]));

/** A whole number in [min, max] from the query, or the fallback when absent; a 400 naming the parameter otherwise. */
function wholeIn(query: QueryReader, name: string, min: number, max: number, fallback: number): number {
  const v = query(name)?.trim();
  if (v === undefined || v === '') return fallback;
  if (!/^\d{1,2}$/.test(v) || Number(v) < min || Number(v) > max) throw badParam(name, `a whole number from ${min} to ${max}`);
  return Number(v);
}

/** history: `month` and `day` (today's in Asia/Shanghai by default) pick the day; `type` is its month-day. */
function historyDay(query: QueryReader, nowMs: number): DailyHotVariant {
  const [yyyy, mm, dd] = formatDate(nowMs).split('-').map(Number) as [number, number, number];
  const month = wholeIn(query, 'month', 1, 12, mm);
  const day = wholeIn(query, 'day', 1, 31, dd);
  const label = `${month}-${day}`;
  if (query('month') === undefined && query('day') === undefined) return { label };
  const dayOf = (year: number) => `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
  // February 29th is a day of history in every year: outside leap years it is asked as 2024's.
  const date = isIsoDate(dayOf(yyyy)) ? dayOf(yyyy) : dayOf(2024);
  if (!isIsoDate(date)) throw badParam('day', `a day of month ${month}`);
  return { label, params: { date } };
}

const DECLARED_LIST_ROUTES: readonly DailyHotRoute[] = [
  { name: 'bilibili', path: '/video-site-rank', title: '哔哩哔哩', description: '你所热爱的，就是你的生活', link: 'https://www.bilibili.com/v/popular/rank/all', source: 'video-site-rank', types: typesOf(bilibiliRank.variants, '热榜 · ') },
  { name: 'weibo', path: '/hot-microblog', title: '微博', description: '实时热点，每分钟更新一次', link: 'https://s.weibo.com/top/summary/', source: 'hot-microblog', types: only('热搜榜') },
  { name: 'kuaishou', path: '/hot-short-video-b', title: '快手', description: '快手，拥抱每一种生活', link: 'https://www.kuaishou.com/', source: 'hot-short-video-b', types: only('热榜') },
  { name: 'yystv', path: '/game-media-feed', title: '游研社', description: '游研社是以游戏内容为主的新媒体，出品内容包括大量游戏、动漫有关的研究文章和社长聊街机、社长说、游研剧场、老四强等系列视频内容。', link: 'https://www.yystv.cn/docs', source: 'game-media-feed', types: only('全部文章') },
  { name: 'coolapk', path: '/hot-app-community', title: '酷安', link: 'https://www.coolapk.com/', source: 'hot-app-community', types: only('热榜') },
  { name: 'newsmth', path: '/hot-campus-forum', title: '水木社区', description: '水木社区是一个源于清华的高知社群。', link: 'https://www.newsmth.net/', source: 'hot-campus-forum', types: only('热门话题') },
  { name: 'sina-news', path: '/news-portal-c-rank', title: '新浪新闻', link: 'https://sinanews.sina.cn/', source: 'news-portal-c-rank', types: typesOf(sinaRank.variants) },
  { name: 'weatheralarm', path: '/weather-alarm-feed', title: '中央气象台', link: 'http://nmc.cn/publish/alarm.html', source: 'weather-alarm-feed', types: only('全国气象预警'), options: { province: { name: '预警区域', value: '省份名称（ 例如：广东省 ）' } }, pick: provinceAlarms },
  { name: 'ithome-xijiayi', path: '/game-giveaway-news', title: 'IT之家「喜加一」', description: '最新最全的「喜加一」游戏动态尽在这里！', link: 'https://www.ithome.com/zt/xijiayi', source: 'game-giveaway-news', types: only('最新动态') },
  { name: 'gameres', path: '/game-industry-news', title: 'GameRes 游资网', description: '面向游戏从业者的游戏开发资讯，旨在为游戏制作人提供游戏研发类的程序技术、策划设计、艺术设计、原创设计等资讯内容。', link: 'https://www.gameres.com', source: 'game-industry-news', types: only('最新资讯') },
  { name: 'earthquake', path: '/earthquake-feed', title: '中国地震台', link: 'https://news.ceic.ac.cn/', source: 'earthquake-feed', types: only('地震速报') },
  { name: 'nodeseek', path: '/server-forum-feed', title: 'NodeSeek', link: 'https://www.nodeseek.com/', source: 'server-forum-feed', types: only('最新') },
  { name: 'linuxdo', path: '/hot-linux-forum', title: 'Linux.do', description: 'Linux 技术社区热搜', link: 'https://linux.do/top/weekly', source: 'hot-linux-forum', types: only('热门文章') },
  { name: 'nytimes', path: '/intl-newspaper-feed', title: '纽约时报', link: 'https://www.nytimes.com/', source: 'intl-newspaper-feed', types: typesOf(nytimesFeed.variants) },
  { name: 'hostloc', path: '/hot-hosting-forum', title: '全球主机交流', link: 'https://hostloc.com/', source: 'hot-hosting-forum', types: typesOf(hostlocGuide.variants) },
  { name: 'douyin', path: '/hot-short-video-a', title: '抖音', description: '实时上升热点', link: 'https://www.douyin.com', source: 'hot-short-video-a', types: only('热榜') },
  { name: 'zhihu', path: '/hot-qa-site', title: '知乎', link: 'https://www.zhihu.com/hot', source: 'hot-qa-site', types: only('热榜') },
  { name: '36kr', path: '/hot-business-news', title: '36氪', link: 'https://m.36kr.com/hot-list-m', source: 'hot-business-news', types: typesOf(krRank.variants) },
  { name: 'baidu', path: '/search-a/hot', title: '百度', link: 'https://top.baidu.com/board', source: 'search-a', types: { realtime: { label: '热搜', params: { board: 'hot' } }, teleplay: { label: '电视剧', params: { board: 'teleplay' } } } },
  { name: 'sspai', path: '/hot-digital-life', title: '少数派', link: 'https://sspai.com/', source: 'hot-digital-life', types: { 热门文章: { label: '热榜' } } },
  { name: 'ithome', path: '/hot-it-news', title: 'IT之家', description: '爱科技，爱这里 - 前沿科技新闻网站', link: 'https://m.ithome.com/rankm/', source: 'it-news-rank', types: only('热榜') },
  { name: 'thepaper', path: '/hot-news-paper', title: '澎湃新闻', link: 'https://www.thepaper.cn/', source: 'hot-news-paper', types: only('热榜') },
  { name: 'toutiao', path: '/hot-news-feed', title: '今日头条', link: 'https://www.toutiao.com/', source: 'hot-news-feed', types: only('热榜') },
  { name: 'tieba', path: '/search-a/forum', title: '百度贴吧', description: '全球领先的中文社区', link: 'https://tieba.baidu.com/hottopic/browse/topicList', source: 'search-a', types: { default: { label: '热议榜', params: { board: 'forum' } } } },
  { name: 'juejin', path: '/hot-dev-community', title: '稀土掘金', link: 'https://juejin.cn/hot/articles', source: 'hot-dev-community', types: { '1': { label: '文章榜' } } },
  { name: 'qq-news', path: '/hot-news-portal-a', title: '腾讯新闻', link: 'https://news.qq.com/', source: 'hot-news-portal-a', types: only('热点榜') },
  { name: 'douban-movie', path: '/review-a/chart', title: '豆瓣电影', link: 'https://movie.douban.com/chart', source: 'review-a-chart', types: only('新片榜') },
  { name: 'genshin', path: '/game-news-a', title: '原神', link: 'https://www.miyoushe.com/ys/home/28', source: 'game-news-a', types: { '1': { label: '最新动态' } } },
  { name: 'starrail', path: '/game-news-b', title: '崩坏：星穹铁道', link: 'https://www.miyoushe.com/sr/home/53', source: 'game-news-b', types: { '1': { label: '最新动态' } } },
  { name: 'lol', path: '/game-news-c', title: '英雄联盟', link: 'https://lol.qq.com/gicp/news/423/2/1334/1.html', source: 'game-news-c', types: only('更新公告') },
  { name: 'netease-news', path: '/hot-news-portal-b', title: '网易新闻', link: 'https://m.163.com/hot', source: 'hot-news-portal-b', types: only('热点榜') },
  { name: 'weread', path: '/book-rank-a', title: '微信读书', link: 'https://weread.qq.com/', source: 'book-rank-a', types: typesOf(wereadRank.variants) },
  { name: 'douban-group', path: '/review-a/groups', title: '豆瓣讨论', link: 'https://www.douban.com/group/explore', source: 'review-a-groups', types: only('讨论精选') },
  { name: 'ngabbs', path: '/hot-game-forum', title: 'NGA', description: '精英玩家俱乐部', link: 'https://ngabbs.com/', source: 'hot-game-forum', types: only('论坛热帖') },
  { name: 'hellogithub', typeParam: 'sort', path: '/hot-open-source', title: 'HelloGitHub', description: '分享 GitHub 上有趣、入门级的开源项目', link: 'https://hellogithub.com/', source: 'hot-open-source', types: { featured: { label: '热门仓库' } } },
  { name: 'jianshu', path: '/hot-writing-community', title: '简书', description: '一个优质的创作社区', link: 'https://www.jianshu.com/', source: 'hot-writing-community', types: only('热门推荐') },
  { name: 'zhihu-daily', path: '/qa-site-daily', title: '知乎日报', description: '每天三次，每次七分钟', link: 'https://daily.zhihu.com/', source: 'qa-site-daily', types: only('推荐榜') },
  { name: 'sina', path: '/hot-news-portal-c', title: '新浪网', description: '热榜太多，一个就够', link: 'https://sinanews.sina.cn/', source: 'hot-news-portal-c', types: { all: { label: '新浪热榜' } } },
  { name: 'hupu', path: '/hot-sports-forum', title: '虎扑', link: 'https://bbs.hupu.com/all-gambia', source: 'hot-sports-forum', types: { '1': { label: '步行街热帖' } } },
  { name: 'v2ex', path: '/hot-dev-forum', title: 'V2EX', link: 'https://www.v2ex.com/', source: 'hot-dev-forum', types: { hot: { label: '主题榜' }, latest: { label: '主题榜', params: { type: 'latest' } } } },
  { name: 'github', path: '/code-trending', title: 'github 趋势', link: 'https://github.com/trending?since=daily', source: 'code-trending', types: { daily: { label: '日榜' }, weekly: { label: '周榜', params: { since: 'weekly' } }, monthly: { label: '月榜', params: { since: 'monthly' } } } },
  { name: 'csdn', path: '/hot-dev-blog', title: 'CSDN', description: '专业开发者社区', link: 'https://www.csdn.net/', source: 'hot-dev-blog', types: only('排行榜') },
  { name: 'acfun', path: '/video-site-b-rank', title: 'AcFun', description: 'AcFun是一家弹幕视频网站，致力于为每一个人带来欢乐。', link: 'https://www.acfun.cn/rank/list/', source: 'video-site-b-rank', types: { '-1': { label: '排行榜 · 全站' } } },
  { name: 'huxiu', path: '/tech-moments', title: '虎嗅', link: 'https://www.huxiu.com/moment/', source: 'tech-moments', types: only('24小时') },
  { name: 'ifanr', path: '/tech-flash-news', title: '爱范儿', description: '15秒了解全球新鲜事', link: 'https://www.ifanr.com/digest/', source: 'tech-flash-news', types: only('快讯') },
  { name: 'honkai', path: '/game-news-d', title: '崩坏3', link: 'https://www.miyoushe.com/bh3/home/6', source: 'game-news-d', types: { '1': { label: '最新动态' } } },
  { name: 'smzdm', path: '/hot-shopping-deals', title: '什么值得买', description: '什么值得买是一个中立的、致力于帮助广大网友买到更有性价比网购产品的最热门推荐网站。', link: 'https://www.smzdm.com/top/', source: 'hot-shopping-deals', types: { '1': { label: '今日热门' }, '7': { label: '周热门', params: { unit: '7' } }, '30': { label: '月热门', params: { unit: '30' } } } },
  { name: 'geekpark', path: '/hot-tech-park', title: '极客公园', description: '极客公园聚焦互联网领域，跟踪新鲜的科技新闻动态，关注极具创新精神的科技产品。', link: 'https://www.geekpark.net/', source: 'hot-tech-park', types: only('热门文章') },
  { name: 'guokr', path: '/hot-science', title: '果壳', description: '科技有意思', link: 'https://www.guokr.com/', source: 'hot-science', types: only('热门文章') },
  { name: 'dgtle', path: '/hot-digital-gear', title: '数字尾巴', description: '致力于分享美好数字生活体验，囊括你闻所未闻的最丰富数码资讯，触所未触最抢鲜产品评测，随时随地感受尾巴们各式数字生活精彩图文、摄影感悟、旅行游记、爱物分享。', link: 'https://www.dgtle.com/', source: 'hot-digital-gear', types: only('热门文章') },
  { name: 'miyoushe', path: '/game-community-news', title: '米游社 · 崩坏3', link: 'https://www.miyoushe.com/', source: 'game-community-news', types: { '1': { label: '最新公告' } }, options: { game: { name: '游戏分类', type: GAME_NAMES }, type: { name: '榜单分类', type: KINDS } }, pick: gameCommunityList },
  { name: '51cto', path: '/hot-it-community', title: '51CTO', link: 'https://www.51cto.com/', source: 'hot-it-community', types: only('推荐榜') },
  { name: 'producthunt', path: '/hot-product-launch', title: 'Product Hunt', description: 'The best new products, every day', link: 'https://www.producthunt.com/', source: 'hot-product-launch', types: only('Today') },
  { name: '52pojie', path: '/hot-reverse-forum', title: '吾爱破解', link: 'https://www.52pojie.cn/', source: 'hot-reverse-forum', types: typesOf(pojieGuide.variants) },
];

/** One of a route's named values from the query (the first by default); a 400 naming the parameter and the values otherwise. */
function oneOf(query: QueryReader, name: string, values: Readonly<Record<string, string>>): [string, string] {
  const asked = query(name)?.trim() || (Object.keys(values)[0] as string);
  const label = values[asked];
  if (label === undefined) throw badParam(name, `one of ${Object.keys(values).map((n) => `"${n}"`).join(', ')} (the values served here)`);
  return [asked, label];
}

/** weatheralarm: `province` narrows the country's alarms to one province's (validated by the source: a 400 naming it). */
function provinceAlarms(query: QueryReader): DailyHotVariant {
  const province = query('province')?.trim();
  return province ? { label: `${province}气象预警`, params: { province } } : { label: '全国气象预警' };
}

/** miyoushe: `game` and `type` pick the game and the kind of news, which its `title` and `type` name. */
function gameCommunityList(query: QueryReader): DailyHotVariant {
  const [game, gameName] = oneOf(query, 'game', GAME_NAMES);
  const [kind, kindName] = oneOf(query, 'type', KINDS);
  return { title: `米游社 · ${gameName}`, label: `最新${kindName}`, params: { game, type: kind } };
}

/** Routes over lists we serve in our own shape (the view maps them; see dailyHotItem). */
const OWN_SHAPE_ROUTES: readonly DailyHotRoute[] = [
  { name: 'hackernews', path: '/tech-forum/:type', title: 'Hacker News', description: 'News about hacking and startups', link: 'https://news.ycombinator.com/', source: 'tech-forum', types: { default: { label: 'Popular', params: { type: 'top' } } } },
  { name: 'history', path: '/today-in-history', title: '历史上的今天', link: 'https://baike.baidu.com/calendar', source: 'today-in-history', types: {}, options: { month: '月份', day: '日期' }, pick: historyDay },
];

export const DAILYHOT_ROUTES: readonly DailyHotRoute[] = [...DECLARED_LIST_ROUTES, ...OWN_SHAPE_ROUTES];

/** The query parameter that picks a list's variant: `type`, or the route's own name for it. */
export const typeParamOf = (route: DailyHotRoute): string => route.typeParam ?? 'type';
