/** Types of latin1-only.mjs (plain JavaScript, as scripts/build.mjs runs without tsx). */
export function latin1Only(code: string): string;
