/**
 * Hot topics of the lifestyle community, from the iOS app's hot-list API
 * https://edith.xiaohongshu.com/api/sns/v1/search/hot_list. The API answers only requests that
 * look like the app: a `shield` token and the `xy-platform-info` / `xy-common-params` device
 * headers. Those are static values copied from one app session and are expected to rot; they
 * are settings (SOURCE_HOT_LIFESTYLE_A_*) so they can be replaced without a release. When they
 * stop working the API answers `success: false` (or HTTP 461/406), which shows as `blocked`.
 * `score` is display text such as "612.3万"; we give it as a number too.
 */
import { defineHotList, parseDeclared, type DeclaredItem, type JsonList } from './_shared/declared-list.ts';
import { asNumber, asString, parseHeat } from './_shared/hot-list.ts';

export const UPSTREAM_URL = 'https://edith.xiaohongshu.com/api/sns/v1/search/hot_list';

/** Statuses the API uses for risk control and expired sessions. */
const REFUSED_STATUSES = [401, 403, 406, 461, 471] as const;

const DEVICE_ID = 'C323D3A5-6A27-4CE6-AA0E-51C9D4C26A24';
const APP_BUILD = '8070515';
const FINGERPRINT = '20230920120211bd7b71a80778509cf4211099ea911000010d2f20f6050264';

export const DEFAULT_SHIELD =
  'XYAAAAAQAAAAEAAABTAAAAUzUWEe4xG1IYD9/c+qCLOlKGmTtFa+lG434Oe+FTRagxxoaz6rUWSZ3+juJYz8RZqct+oNMyZQxLEBaBEL+H3i0RhOBVGrauzVSARchIWFYwbwkV';
export const DEFAULT_PLATFORM_INFO = `platform=iOS&version=8.7&build=${APP_BUILD}&deviceId=${DEVICE_ID}&bundle=com.xingin.discover`;
export const DEFAULT_COMMON_PARAMS = [
  'app_id=ECFAAF02',
  `build=${APP_BUILD}`,
  'channel=AppStore',
  `deviceId=${DEVICE_ID}`,
  `device_fingerprint=${FINGERPRINT}`,
  `device_fingerprint1=${FINGERPRINT}`,
  'device_model=phone',
  'fid=1695182528-0-0-63b29d709954a1bb8c8733eb2fb58f29',
  'gid=7dc4f3d168c355f1a886c54a898c6ef21fe7b9a847359afc77fc24ad',
  'identifier_flag=0',
  'lang=zh-Hans',
  'launch_id=716882697',
  'platform=iOS',
  'project_id=ECFAAF',
  'sid=session.1695189743787849952190',
  't=1695190591',
  'teenager=0',
  'tz=Asia/Shanghai',
  'uis=light',
  'version=8.7',
].join('&');

const APP_USER_AGENT =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MicroMessenger/8.0.7(0x18000733) NetType/WIFI Language/zh_CN';

export interface LifestyleItem extends DeclaredItem {
  hot_value: number;
  /** The heat as the app shows it, e.g. "612.3万". */
  score: string;
  hot_value_desc: string;
  /** The app's label of the topic (热, 新, 独家… or 无), as it gives it; '' when absent. */
  word_type: string;
  /** The label's image; '' when none (60s spells the field this way). */
  work_type_icon: string;
  /** Places moved since the previous board. */
  rank_change: number;
}

export const list: JsonList = {
  id: 'hot-lifestyle-a',
  name: '小红书热点',
  description: 'Hot topics of the lifestyle community: rank, title, heat, label and a search link. Needs app tokens (defaults included; replace them when the source shows as blocked).',
  homepage: 'https://www.xiaohongshu.com/explore',
  path: '/hot-lifestyle-a',
  trending: {},
  pace: 'hot',
  request: { url: UPSTREAM_URL, allowStatus: REFUSED_STATUSES },
  env: [
    { name: 'SOURCE_HOT_LIFESTYLE_A_SHIELD', doc: 'The `shield` request token of the app', default: DEFAULT_SHIELD, secret: true },
    { name: 'SOURCE_HOT_LIFESTYLE_A_PLATFORM_INFO', doc: 'The app\'s `xy-platform-info` header (platform, version, build, device id)', default: DEFAULT_PLATFORM_INFO },
    { name: 'SOURCE_HOT_LIFESTYLE_A_COMMON_PARAMS', doc: 'The app\'s `xy-common-params` header (device fingerprint, session, timestamp)', default: DEFAULT_COMMON_PARAMS, secret: true },
  ],
  headers: (env) => ({
    'user-agent': APP_USER_AGENT,
    referer: 'https://app.xhs.cn/',
    'xy-direction': '22',
    shield: env('SOURCE_HOT_LIFESTYLE_A_SHIELD') ?? '',
    'xy-platform-info': env('SOURCE_HOT_LIFESTYLE_A_PLATFORM_INFO') ?? '',
    'xy-common-params': env('SOURCE_HOT_LIFESTYLE_A_COMMON_PARAMS') ?? '',
  }),
  refused: (root, status) => {
    if (status >= 400) return `upstream answered HTTP ${status} (app tokens expired or risk control)`;
    const code = asNumber(root.code);
    if (root.success !== false && (code === undefined || code === 0)) return undefined;
    return `upstream refused the request: code=${code ?? '?'} ${asString(root.msg) ?? ''} (app tokens expired or risk control)`.trim();
  },
  items: ['data', 'items'],
  item: (e) => {
    const title = asString(e.title)?.trim();
    const scoreText = asString(e.score)?.trim() ?? '';
    return {
      id: e.id,
      title,
      link: title ? `https://www.xiaohongshu.com/search_result?keyword=${encodeURIComponent(title)}&type=51` : undefined,
      hot: parseHeat(scoreText) ?? 0,
      extra: {
        score: scoreText,
        hot_value_desc: scoreText,
        word_type: asString(e.word_type)?.trim() ?? '',
        work_type_icon: asString(e.icon) ?? '',
        rank_change: asNumber(e.rank_change) ?? 0,
      },
    };
  },
  upgrade: {
    renamed: { word_type_icon: 'work_type_icon' },
    fill: (i) => ({ score: i.score ?? i.hot_value_desc ?? '', word_type: i.word_type ?? '', work_type_icon: i.work_type_icon ?? '' }),
  },
  view: { hot: (i: LifestyleItem) => i.hot_value_desc || i.hot_value },
};

export const parse = (raw: unknown) => parseDeclared(list, raw) as LifestyleItem[];

export default defineHotList(list);
