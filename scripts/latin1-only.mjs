/**
 * Rewrites compiled JavaScript so that no character is beyond Latin-1. V8 holds a module's
 * source text for as long as the module lives, at two bytes a character once one character is
 * beyond Latin-1; esbuild escapes such characters in strings and identifiers but leaves them in
 * regular expressions and comments, so a few Chinese patterns doubled the bundle in memory.
 * `\uXXXX` (UTF-16 units; a surrogate pair is one character in a `u` pattern) means the same
 * character in a pattern; an identity escape (`\字`) loses its backslash, as `\\uXXXX` would be
 * a backslash followed by text. Only a pattern's `source` shows the escape (the project reads none).
 */
export function latin1Only(code) {
  return code.replace(/(\\*)([^\x00-\xff])/g, (_, slashes, char) => slashes.slice(slashes.length % 2) + `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
