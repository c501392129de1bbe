/**
 * The size and quality an image is priced at when the request leaves them to the vendor
 * (`auto`, or absent), by OpenAI's images reference (platform.openai.com/docs/api-reference/images,
 * as the official `openai` package's ImageGenerateParams and ImagesResponse document it):
 * - GPT image models (gpt-image-1, -1-mini, -1.5, -2, chatgpt-image-latest): `quality` defaults to
 *   `auto`, which "will automatically select the best quality for the given model", so it is priced
 *   `high`; `size` `auto` (the default) may pick any of the model's sizes, so it is priced at the
 *   dearest, `1536x1024`. Their answer reports the `quality` and `size` it made (ImagesResponse),
 *   and those are then billed instead (see `answeredImage`).
 * - dall-e-3: `standard` quality (its documented default: "defaults to standard"; it has no
 *   other automatic choice and its answer does not say), size `1024x1024`.
 * - dall-e-2: size `1024x1024` (one quality only).
 * Other models keep what the request said (the price table's `default` covers the rest).
 */
import { isObject } from './body.ts';

export interface ImageChoice {
  size?: string | undefined;
  quality?: string | undefined;
}

const GPT_IMAGE = /^(?:gpt-image-|chatgpt-image-)/;
const unset = (v: string | undefined): boolean => v === undefined || v === 'auto';

/** The size and quality to price a `model` image at. */
export function pricedImageChoice(model: string | null, asked: ImageChoice): ImageChoice {
  const name = model ?? '';
  if (GPT_IMAGE.test(name)) return { size: unset(asked.size) ? '1536x1024' : asked.size, quality: unset(asked.quality) ? 'high' : asked.quality };
  if (name.startsWith('dall-e-3')) return { size: unset(asked.size) ? '1024x1024' : asked.size, quality: unset(asked.quality) ? 'standard' : asked.quality };
  if (name.startsWith('dall-e-2')) return { size: unset(asked.size) ? '1024x1024' : asked.size, quality: asked.quality };
  return asked;
}

const SIZE = /^\d{2,5}x\d{2,5}$/;
const QUALITY = /^[a-z]{1,16}$/;

/** The size and quality an images answer says it made (GPT image models report both); absent fields stay as asked. */
export function answeredImage(answer: unknown): ImageChoice {
  if (!isObject(answer)) return {};
  return {
    ...(typeof answer.size === 'string' && SIZE.test(answer.size) ? { size: answer.size } : {}),
    ...(typeof answer.quality === 'string' && QUALITY.test(answer.quality) ? { quality: answer.quality } : {}),
  };
}
