/**
 * The billable units of the media routes, read from the request (to reserve) and from the
 * answer (to settle): images by count, size and quality (the answer's, when it reports them;
 * `auto` priced as image-quality.ts says); seconds of audio in (uploads, at
 * 16,000 bytes per second unless the answer reports its duration) and out (speech, at 15
 * characters of input text per second); seconds of video (`seconds`, default 4) or one call;
 * music tasks; rerank searches.
 */
import { isObject, nonNegativeInt, type JsonObject } from './body.ts';
import type { Units } from './call.ts';
import { AUDIO_BYTES_PER_SECOND } from './estimate.ts';
import { answeredImage } from './image-quality.ts';

export const SPEECH_CHARS_PER_SECOND = 15;
export const DEFAULT_VIDEO_SECONDS = 4;

export const NO_UNITS: Readonly<Units> = { images: undefined, audioInSeconds: 0, audioOutSeconds: 0, videoSeconds: 0, videoCalls: 0, musicTasks: 0, rerankSearches: 0 };

/** The units to charge: all of them once the upstream succeeded, none otherwise. */
export function billedUnits(units: Units, succeeded: boolean): Units {
  return succeeded ? units : NO_UNITS;
}

function stringField(body: JsonObject, name: string): string | undefined {
  const v = body[name];
  return typeof v === 'string' && v.length > 0 && v.length <= 64 ? v : typeof v === 'number' ? String(v) : undefined;
}

/** Images asked for by an images request (JSON body or form fields): `n`, `size`, `quality`. */
export function requestedImages(fields: JsonObject): Partial<Units> {
  const n = nonNegativeInt(typeof fields.n === 'string' ? Number(fields.n) : fields.n);
  return { images: { count: n && n > 0 ? Math.min(n, 100) : 1, size: stringField(fields, 'size'), quality: stringField(fields, 'quality') } };
}

/** Images in an images answer (`data` array); `undefined` when it does not say. */
export function answeredImages(answer: unknown): number | undefined {
  return isObject(answer) && Array.isArray(answer.data) ? answer.data.length : undefined;
}

/** The images asked for, corrected by what a successful answer says it made: how many, their size and quality. */
export function imagesFromAnswer(asked: Units['images'], answer: unknown): Units['images'] {
  if (!asked) return asked;
  const count = answeredImages(answer);
  return { ...asked, ...(count !== undefined ? { count } : {}), ...answeredImage(answer) };
}

export function speechSeconds(input: unknown): Partial<Units> {
  return { audioOutSeconds: typeof input === 'string' ? input.length / SPEECH_CHARS_PER_SECOND : 0 };
}

export function uploadSeconds(bytes: number): Partial<Units> {
  return { audioInSeconds: bytes / AUDIO_BYTES_PER_SECOND };
}

/** Seconds of audio a transcription answer reports (`usage.seconds`, or verbose_json `duration`). */
export function answeredSeconds(answer: unknown): number | undefined {
  if (!isObject(answer)) return undefined;
  if (isObject(answer.usage) && answer.usage.type === 'duration' && typeof answer.usage.seconds === 'number' && answer.usage.seconds >= 0) return answer.usage.seconds;
  return typeof answer.duration === 'number' && answer.duration >= 0 ? answer.duration : undefined;
}

export function requestedVideo(fields: JsonObject): Partial<Units> {
  const raw = fields.seconds ?? fields.duration;
  const n = typeof raw === 'string' ? Number(raw) : raw;
  const seconds = typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.min(n, 600) : DEFAULT_VIDEO_SECONDS;
  return { videoSeconds: seconds, videoCalls: 1 };
}
