/** Chat messages as every codec reads and writes them: a message's text, and an assistant turn from its parts. */
import type { ChatResponse, ChatTextPart, ChatToolCall } from './types.ts';

/** A message's content as plain text (text parts joined; none is ''). */
export function chatText(content: string | ChatTextPart[] | null | undefined): string {
  if (content == null) return '';
  return typeof content === 'string' ? content : content.map((p) => p.text).join('');
}

/** An assistant turn: its text (null when it only calls tools), its tool calls and its reasoning, each only when there is one. */
export function assistantMessage(text: string, calls: ChatToolCall[], reasoning: string): ChatResponse['choices'][number]['message'] {
  return { role: 'assistant', content: text || (calls.length ? null : ''), ...(calls.length ? { tool_calls: calls } : {}), ...(reasoning ? { reasoning_content: reasoning } : {}) };
}
