/**
 * A least-recently-used map bounded by the bytes of its values (as the caller counts them):
 * adding past the bound drops the least recently read entries first. A value larger than the
 * whole bound is not kept.
 *
 * With `probation: n`, a new entry waits among the last n set (at most a quarter of the bound in
 * bytes) and joins the LRU only when it is read again: a stream of one-off keys (a new text to
 * hash or draw on every request) then neither pushes out the entries that do repeat nor lives long
 * enough to be promoted to the heap's old generation, whose collection cost a new hash content
 * more than computing it (BENCHMARKS.md, issue 15); a value read again soon after it was made (a
 * QR image drawn for the data, then sent as the image) is still there.
 */
export interface ByteLruOptions {
  probation?: number;
}

interface Entry<V> {
  value: V;
  bytes: number;
}

export class ByteLru<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private used = 0;
  private readonly waiting = new Map<string, Entry<V>>();
  private waitingBytes = 0;

  constructor(
    readonly maxBytes: number,
    private readonly options: ByteLruOptions = {},
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      // Re-inserting moves the key to the newest end of the Map's order.
      this.entries.delete(key);
      this.entries.set(key, entry);
      return entry.value;
    }
    const waited = this.waiting.get(key);
    if (!waited) return undefined;
    this.unwait(key, waited);
    this.keep(key, waited);
    return waited.value;
  }

  set(key: string, value: V, bytes: number): void {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.used -= old.bytes;
    }
    const waited = this.waiting.get(key);
    if (waited) this.unwait(key, waited);
    if (bytes > this.maxBytes) return;
    const limit = this.options.probation;
    if (limit === undefined) return this.keep(key, { value, bytes });
    this.waiting.set(key, { value, bytes });
    this.waitingBytes += bytes;
    for (const [oldest, entry] of this.waiting) {
      if (this.waiting.size <= limit && this.waitingBytes <= this.maxBytes / 4) break;
      this.unwait(oldest, entry);
    }
  }

  private unwait(key: string, entry: Entry<V>): void {
    this.waiting.delete(key);
    this.waitingBytes -= entry.bytes;
  }

  private keep(key: string, entry: Entry<V>): void {
    for (const [oldest, old] of this.entries) {
      if (this.used + entry.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.used -= old.bytes;
    }
    this.entries.set(key, entry);
    this.used += entry.bytes;
  }

  /** Entries kept (not counting those on probation). */
  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.used;
  }
}
