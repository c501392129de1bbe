/**
 * Titles reduced to what they say, so that the same words match whatever their typography:
 * full-width forms become half-width (NFKC), letters lower-case, `#hashtag#` markers, punctuation,
 * symbols and white space go, and a score written `3:0`, `3-0` or `3比0` reads `3比0`.
 * The item index keys and searches titles by this form; trending compares titles in it.
 */

const SCORE = /(\d+)\s*[:：\-–—比]\s*(\d+)/g;
const NOT_WORD = /[\p{P}\p{S}\p{Z}\p{C}\s]+/gu;

export function titleKey(title: string): string {
  return title.normalize('NFKC').toLowerCase().replace(SCORE, '$1比$2').replace(NOT_WORD, '');
}
