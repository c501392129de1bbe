/** POST /v1/images/edits: multipart (image file, prompt, model) forwarded byte for byte, checked on the way; billed per image. */
import { imagesFromAnswer, requestedImages } from '../billing.ts';
import type { GatewayCall } from '../call.ts';
import { badRequest } from '../errors.ts';
import { textTokens } from '../estimate.ts';
import { isMultipart } from '../multipart.ts';
import { forwardMultipart, requireField } from './upload.ts';

const IMAGE_FIELD = /^image(\[\d*\])?$/;

export async function imageEdits(call: GatewayCall): Promise<void> {
  if (!isMultipart(call.ctx.get('content-type')))
    throw badRequest('Send the image edit as multipart/form-data with an "image" file and the "prompt" and "model" fields.', null, 'invalid_content_type');
  const up = await forwardMultipart(call, async (form) => {
    const model = requireField(form, 'model', 'the image model name');
    call.permitModel(model);
    const image = form.files.find((f) => IMAGE_FIELD.test(f.field));
    if (!image) throw badRequest('Missing required file "image": attach the image to edit as a file part named "image".', 'image', 'missing_required_parameter');
    if (image.size === 0) throw badRequest('The "image" file is empty.', 'image');
    const prompt = requireField(form, 'prompt', 'a text describing the change');
    await call.reserve({ promptTokens: textTokens(prompt.length), units: requestedImages(Object.fromEntries(form.fields)) });
  });
  await call.relay(up, {
    usage: 'openai',
    inspect: (answer) => {
      if (call.units.images && up.status < 400) call.units = { ...call.units, images: imagesFromAnswer(call.units.images, answer) };
    },
  });
}
