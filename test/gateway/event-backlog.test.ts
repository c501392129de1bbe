import { describe, expect, it } from 'vitest';
import { EventBacklog } from '../../src/gateway/event-backlog.ts';

describe('EventBacklog', () => {
  it('reads events that may carry usage at once and keeps the others until drained, in order', () => {
    const read: string[] = [];
    const backlog = new EventBacklog((d) => read.push(d));
    backlog.push('{"choices":[{"delta":{"content":"a"}}]}');
    backlog.push('{"choices":[],"usage":{"prompt_tokens":1}}');
    backlog.push('{"usageMetadata":{"totalTokenCount":3}}');
    backlog.push('{"choices":[{"delta":{"content":"b"}}]}');
    expect(read).toEqual(['{"choices":[],"usage":{"prompt_tokens":1}}', '{"usageMetadata":{"totalTokenCount":3}}']);
    backlog.drain();
    expect(read.slice(2)).toEqual(['{"choices":[{"delta":{"content":"a"}}]}', '{"choices":[{"delta":{"content":"b"}}]}']);
    backlog.drain();
    expect(read).toHaveLength(4);
  });

  it('past its size, hands over what it kept and reads every later event at once', () => {
    const read: string[] = [];
    const backlog = new EventBacklog((d) => read.push(d), 10);
    backlog.push('123456');
    expect(read).toEqual([]);
    backlog.push('789012');
    expect(read).toEqual(['123456', '789012']);
    backlog.push('x');
    expect(read).toEqual(['123456', '789012', 'x']);
  });
});
