/** An upstream's refusal (a 4xx answer) read from its `error` object, whichever vendor wrote it. */
import { isObject } from '../body.ts';
import type { UpstreamErrorInfo } from './types.ts';

/** The fields of the `error` object in which a vendor names the kind of error, its code and (OpenAI) the parameter at fault. */
export interface ErrorFields {
  type: string;
  code: string;
  param?: string;
}

export function upstreamErrorInfo(status: number, body: unknown, fields: ErrorFields): UpstreamErrorInfo {
  const e = isObject(body) && isObject(body.error) ? body.error : {};
  const text = (key: string): string | undefined => {
    const v = e[key];
    return typeof v === 'string' ? v : undefined;
  };
  return {
    message: text('message') ?? `The upstream refused the request (HTTP ${status}).`,
    type: text(fields.type),
    code: text(fields.code),
    ...(fields.param ? { param: text(fields.param) ?? null } : {}),
  };
}
