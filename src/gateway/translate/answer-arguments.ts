/**
 * A tool call's arguments in an upstream's answer, as the client styles that carry them as an
 * object (Anthropic `input`, Gemini `args`) need them. The client side of the same question is
 * narrow.ts `argumentsObjectAt` (a 400); here the fault is the upstream's (a 502).
 */
import { isObject, type JsonObject } from '../body.ts';
import { upstreamInvalidResponse } from '../errors.ts';

/** The arguments' JSON text as an object ('' is no arguments); 502 naming `path` when it is not JSON of an object. */
export function answerArgumentsObject(args: string, path: string): JsonObject {
  if (args.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    throw upstreamInvalidResponse(`${path} is not JSON`);
  }
  if (!isObject(parsed)) throw upstreamInvalidResponse(`${path} is not a JSON object`);
  return parsed;
}
