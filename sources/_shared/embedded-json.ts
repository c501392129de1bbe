/** Reading JSON state that server-rendered pages embed in their HTML. */
import { load } from './html.ts';
import { SourceError } from '../../src/kernel/errors.ts';

/** Markers of captcha, verification and login pages served instead of content. */
const CHALLENGE_PAGE = /安全验证|验证码|captcha|verify\.(?:snssdk|zijieapi)|wappass\.baidu\.com|passport\.|请登录|登录后/i;

/** Whether an HTML page is a captcha, verification or login page rather than content. */
export function isChallengePage(html: string): boolean {
  return CHALLENGE_PAGE.test(html.slice(0, 20_000));
}

/**
 * The JSON of a Next.js page (`<script id="__NEXT_DATA__">`). A challenge page instead of the
 * content is `blocked`; a page without the script (or with broken JSON) is `parse`.
 */
export function nextData(html: string, host: string): unknown {
  const json = load(html)('script#__NEXT_DATA__').first().text();
  if (!json.trim()) {
    if (isChallengePage(html)) throw new SourceError('blocked', `${host} answered a verification or login page instead of the content`);
    throw new SourceError('parse', `${host} page has no __NEXT_DATA__ script`);
  }
  try {
    return JSON.parse(json) as unknown;
  } catch {
    throw new SourceError('parse', `${host} page has a __NEXT_DATA__ script that is not valid JSON`);
  }
}

/**
 * The JSON object or array literal a page script assigns to `target` (`var _model`,
 * `window.__APOLLO_STATE__`, `const newdata`), found by bracket matching (strings may hold `;`,
 * `}` and `]`, and the script may go on after it); undefined when there is no such assignment
 * or it is not JSON.
 */
export function assignedJson(html: string, target: string): unknown {
  const lhs = target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+');
  const m = new RegExp(`${lhs}\\s*=\\s*[{[]`).exec(html);
  if (!m) return undefined;
  const start = m.index + m[0].length - 1;
  let depth = 0;
  let inString = false;
  for (let i = start; i < html.length; i++) {
    const c = html[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if ((c === '}' || c === ']') && --depth === 0) {
      try {
        return JSON.parse(html.slice(start, i + 1)) as unknown;
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/**
 * The state a page script assigns to `target` (see assignedJson). A challenge page instead of
 * the content is `blocked`; a page without the assignment (or with broken JSON) is `parse`,
 * naming the assignment.
 */
export function assignedState(html: string, target: string, host: string): unknown {
  const state = assignedJson(html, target);
  if (state !== undefined) return state;
  if (isChallengePage(html)) throw new SourceError('blocked', `${host} answered a verification or login page instead of the content`);
  throw new SourceError('parse', `${host} page has no script assigning JSON to ${target}`);
}

/**
 * The JSON of an HTML comment `<!--<name>:{…}-->`, where server-rendered pages keep their state
 * (top.baidu.com's `s-data`). Such JSON may escape `-` as `\-`, which JSON.parse refuses: it
 * is read as `-` (escaped backslashes stay as they are). A challenge page instead of the content
 * is `blocked`; a page without the comment (or with broken JSON) is `parse`, naming the comment.
 */
export function commentState(html: string, name: string, host: string): unknown {
  const m = new RegExp(`<!--${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:([\\s\\S]*?)-->`).exec(html);
  if (!m?.[1]) {
    if (isChallengePage(html)) throw new SourceError('blocked', `${host} answered a verification or login page instead of the content`);
    throw new SourceError('parse', `${host} page has no <!--${name}:…--> state`);
  }
  const json = m[1].replace(/\\\\|\\-/g, (s) => (s === '\\-' ? '-' : s));
  try {
    return JSON.parse(json) as unknown;
  } catch {
    throw new SourceError('parse', `${host} page has a ${name} state that is not valid JSON`);
  }
}
