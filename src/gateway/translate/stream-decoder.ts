/**
 * What every upstream stream decoder does alike: read an SSE event's JSON object, and write chat
 * chunks under the one id, model and creation time of the stream, the usage in a last chunk of
 * its own with no choices (as chat completions sends it with `include_usage`); a stream that ends
 * before its last event, or with an error event, is a 502.
 */
import { isObject, type JsonObject } from '../body.ts';
import { GatewayError, upstreamInvalidResponse } from '../errors.ts';
import type { ChatChunk, ChatFinishReason, ChatUsage, SseEvent, StreamDecoder } from './types.ts';

type Delta = ChatChunk['choices'][number]['delta'];

/** The event's data as a JSON object (502 when it is not JSON, `notJson` saying so, or not an object). */
export function eventObject(event: SseEvent, notJson = 'a stream event is not JSON'): JsonObject {
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch {
    throw upstreamInvalidResponse(notJson);
  }
  if (!isObject(data)) throw upstreamInvalidResponse('a stream event is not a JSON object');
  return data;
}

/** An error event in the middle of a stream: the upstream failed after it had started answering. */
export function streamFailed(kind: string, message: unknown): GatewayError {
  const text = typeof message === 'string' ? message.slice(0, 300) : 'no message';
  return new GatewayError(502, `The upstream model gateway failed while answering (${kind}: ${text}).`, { type: 'upstream_error', code: 'bad_gateway' });
}

export abstract class ChunkingDecoder implements StreamDecoder {
  protected model = '';
  protected readonly created = Math.floor(Date.now() / 1000);
  /** Set when the stream's last event (`lastEvent`) came; a stream that ends without it was cut off. */
  protected finished = false;

  constructor(
    protected id: string,
    private readonly lastEvent: string,
  ) {}

  abstract push(event: SseEvent): ChatChunk[];

  end(): ChatChunk[] {
    if (!this.finished) throw this.cutOff();
    return [];
  }

  protected cutOff(): GatewayError {
    return upstreamInvalidResponse(`the stream ended before ${this.lastEvent}`);
  }

  protected chunk(delta: Delta, finish: ChatFinishReason | null = null): ChatChunk {
    return this.chunkOf([{ index: 0, delta, finish_reason: finish }]);
  }

  protected usageChunk(usage: ChatUsage): ChatChunk {
    const chunk = this.chunkOf([]);
    chunk.usage = usage;
    return chunk;
  }

  private chunkOf(choices: ChatChunk['choices']): ChatChunk {
    return { id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices };
  }
}
