/**
 * The second short-video site's hot list (快手 热榜), from the state its home page
 * https://www.kuaishou.com/?isHome=1 assigns to `window.__APOLLO_STATE__` in a script: an Apollo
 * cache `{defaultClient: {ROOT_QUERY: {'visionHotRank({"page":"home"})': {type: 'id', id}},
 * [id]: {items: [{type: 'id', id: 'VisionHotRankItem:…'}]}, 'VisionHotRankItem:…': {name,
 * hotValue, poster, tagType, photoIds: {json: [photoId]}}}}`. The list's entry is named by the
 * reference in ROOT_QUERY, or found under its generated id `$ROOT_QUERY.visionHotRank(…)` (the
 * key `platform` may follow `page`); `poster` is a percent-encoded URL; pinned entries (`tagType` 置顶)
 * are the site's, not the public's. Format as read by imsyy/DailyHotApi src/routes/kuaishou.ts
 * and ourongxing/newsnow server/sources/kuaishou.ts.
 */
import { SourceError } from '../src/kernel/errors.ts';
import { need } from '../src/kernel/json-path.ts';
import { defineHotList, type JsonList } from './_shared/declared-list.ts';
import { asArray, asRecord, asString } from './_shared/hot-list.ts';

const HOME_RANK = /^\$?(?:ROOT_QUERY\.)?visionHotRank\(\{"page":"home"[,}]/;

/** The hot rank's entry of the Apollo cache, by ROOT_QUERY's reference or its generated id. */
function hotRank(state: Record<string, unknown>): unknown {
  const cache = need(state, 'defaultClient', asRecord, 'an object');
  const rootQuery = asRecord(cache.ROOT_QUERY) ?? {};
  const refKey = Object.keys(rootQuery).find((k) => HOME_RANK.test(k));
  const refId = refKey ? asString(asRecord(rootQuery[refKey])?.id) : undefined;
  const id = refId ?? Object.keys(cache).find((k) => k.startsWith('$ROOT_QUERY.') && HOME_RANK.test(k));
  const entry = id ? asRecord(cache[id]) : undefined;
  if (!entry) throw new SourceError('parse', `missing defaultClient.ROOT_QUERY["visionHotRank({"page":"home"})"] (the hot rank's reference)${id ? `: it names ${id}, absent from defaultClient` : ''}`);
  return entry;
}

const shortVideo = (photoId: string | undefined, name: string | undefined) =>
  photoId ? `https://www.kuaishou.com/short-video/${photoId}` : name ? `https://www.kuaishou.com/search/video?searchKey=${encodeURIComponent(name)}` : undefined;

export const list: JsonList = {
  id: 'hot-short-video-b',
  name: '快手热榜',
  description: "The second short-video site's hot list: title, heat, cover and the video (or, without one, the search for the title).",
  homepage: 'https://www.kuaishou.com/',
  path: '/hot-short-video-b',
  pace: 'hot',
  // The page's script state is an Apollo cache: the list is the hot rank's entry, its items references to entries.
  within: hotRank,
  embedded: { assigned: 'window.__APOLLO_STATE__' },
  request: { url: 'https://www.kuaishou.com/?isHome=1' },
  items: ['items'],
  trending: {},
  item: (ref, state) => {
    const cache = asRecord(state.defaultClient) ?? {};
    const e = asRecord(cache[asString(ref.id) ?? '']);
    if (!e || e.tagType === '置顶') return undefined;
    const name = asString(e.name);
    return {
      id: asString(e.id)?.replace(/^VisionHotRankItem:/, ''),
      title: name,
      link: shortVideo(asString(asArray(asRecord(e.photoIds)?.json)?.[0]), name),
      hot: e.hotValue,
      cover: e.poster,
    };
  },
};

export default defineHotList(list);
