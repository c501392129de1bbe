/**
 * The data of a stream's events kept unparsed until they are needed. A stream's output is counted
 * only to bill it when the upstream reports no usage (and to cut a limited key's stream at its
 * reservation, which reads every event as it passes, so does not defer). Most upstreams report
 * usage, in the few events that mention it, so the others are parsed only if the stream ends
 * without it: profiles showed a JSON.parse of every event as the largest part of a relayed
 * stream's own work. Past `maxChars` kept, the backlog is handed over at once and no longer used.
 */
export class EventBacklog {
  private events: string[] = [];
  private chars = 0;
  private open = true;

  constructor(
    /** Reads one event's data (its usage and output). */
    private readonly read: (data: string) => void,
    private readonly maxChars = 1 << 20,
  ) {}

  /** Take one event's data: read now when it may carry usage (or the backlog is full), else kept. */
  push(data: string): void {
    if (!this.open || data.includes('"usage')) {
      this.read(data);
      return;
    }
    this.events.push(data);
    this.chars += data.length;
    if (this.chars > this.maxChars) {
      this.drain();
      this.open = false;
    }
  }

  /** Read every event kept (the stream ended without usage). */
  drain(): void {
    const events = this.events;
    this.events = [];
    this.chars = 0;
    for (const data of events) this.read(data);
  }
}
