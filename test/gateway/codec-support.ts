/** What the codec tests share: reading fixtures and SSE text, running a codec's stream decoder, a recording tool dropper. */
import fs from 'node:fs';
import { createParser } from 'eventsource-parser';
import { TranslationError, type ChatChunk, type SseEvent, type StyleCodec, type ToolDropper } from '../../src/gateway/translate/types.ts';

export const fixture = (name: string): string => fs.readFileSync(new URL(`../fixtures/translate/${name}`, import.meta.url), 'utf8');

export function events(text: string): SseEvent[] {
  const out: SseEvent[] = [];
  const parser = createParser({ onEvent: (e) => out.push({ event: e.event, data: e.data }) });
  parser.feed(text);
  return out;
}

/** A codec's upstream stream, as SSE text, decoded into chat chunks (end included). */
export function decodeWith(codec: StyleCodec, text: string): ChatChunk[] {
  const decoder = codec.toChatStream();
  const chunks = events(text).flatMap((e) => decoder.push(e));
  return [...chunks, ...decoder.end()];
}

export const joined = (chunks: ChatChunk[], pick: (d: ChatChunk['choices'][number]['delta']) => string | null | undefined): string => chunks.flatMap((c) => c.choices.map((x) => pick(x.delta) ?? '')).join('');

export class Dropped implements ToolDropper {
  readonly names: string[] = [];
  constructor(private readonly refuse = false) {}
  drop(tool: string, param: string): void {
    if (this.refuse) throw new TranslationError(`tool ${tool} refused`, param);
    this.names.push(tool);
  }
  dropField(): void {}
}

export function caught(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}
