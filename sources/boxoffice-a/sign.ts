/**
 * Request signing of the box-office dashboard API (piaofang.maoyan.com), as its web client
 * does it:
 * - query: `timeStamp`, `User-Agent` (base64 of a short browser UA), `index` (random 1–1000),
 *   `channelId` 40009, `sVersion` 2 and `signKey` = md5 of the form-encoded
 *   `method=GET&key=<client key>&<those fields in that order>`;
 * - header `mygsig`: JSON `{m1, m2, m3, ms1, ts, ts1}` where `ms1` = md5 of
 *   `<salt>#<values of {path, ...query} sorted by key, case-insensitively, joined with _>$<ts>`.
 * The client key and the salt are constants of the web client; they are settings
 * (SOURCE_BOXOFFICE_A_SIGN_KEY, SOURCE_BOXOFFICE_A_GUARD_SALT) so that a rotation upstream is
 * fixed without a release.
 */
import { md5 } from '../../src/kernel/digest.ts';

export const DEFAULT_SIGN_KEY = 'A013F70DB97834C0A5492378BD76C53A';
export const DEFAULT_GUARD_SALT = '581409236';
const SHORT_UA = 'Mozilla/5.0 Chrome/140.0.0.0 Safari/537.36';


export interface Signed {
  query: Record<string, string>;
  mygsig: string;
}

/** The signed query and `mygsig` header for one request to `path` at time `ts` (ms). */
export function signRequest(path: string, ts: number, random: number, secrets: { signKey: string; salt: string }): Signed {
  const fields: Record<string, string> = {
    timeStamp: String(ts),
    'User-Agent': Buffer.from(SHORT_UA, 'utf8').toString('base64'),
    index: String(Math.floor(random * 1000) + 1),
    channelId: '40009',
    sVersion: '2',
  };
  const signKey = md5(new URLSearchParams({ method: 'GET', key: secrets.signKey, ...fields }).toString());
  const query = { ...fields, signKey };
  return { query, mygsig: guardHeader(path, query, ts, secrets.salt) };
}

/** The `mygsig` header value for a path and its query. */
export function guardHeader(path: string, query: Record<string, string>, ts: number, salt: string): string {
  const joined = Object.entries({ path, ...query })
    .sort(([a], [b]) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0))
    .map(([, v]) => v)
    .join('_');
  return JSON.stringify({ m1: '0.0.3', m2: 0, m3: '0.0.67_tool', ms1: md5(`${salt}#${joined}$${ts}`), ts, ts1: ts });
}
