/**
 * A least-recently-used map bounded by the bytes of its values (as the caller counts them):
 * adding past the bound drops the least recently read entries first. A value larger than the
 * whole bound is not kept.
 *
 * With `admitOnSecondSet`, a key is kept only when it is set again while still remembered as seen
 * once: a stream of one-off keys (a new text to hash on every request) then passes through
 * without being kept, so it neither pushes out the entries that do repeat nor lives long enough
 * to be promoted to the heap's old generation, whose collection cost a new hash content more
 * than computing it (BENCHMARKS.md, issue 15). The keys seen once are remembered up to that many
 * characters in all, then forgotten together.
 */
export interface ByteLruOptions {
  admitOnSecondSet?: number;
}

export class ByteLru<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private used = 0;
  private readonly seenOnce = new Set<string>();
  private seenChars = 0;

  constructor(
    readonly maxBytes: number,
    private readonly options: ByteLruOptions = {},
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Re-inserting moves the key to the newest end of the Map's order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, bytes: number): void {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.used -= old.bytes;
    }
    if (bytes > this.maxBytes || !this.admits(key)) return;
    for (const [oldest, entry] of this.entries) {
      if (this.used + bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.used -= entry.bytes;
    }
    this.entries.set(key, { value, bytes });
    this.used += bytes;
  }

  private admits(key: string): boolean {
    const budget = this.options.admitOnSecondSet;
    if (budget === undefined || this.seenOnce.delete(key)) return true;
    if (key.length > budget) return false;
    if (this.seenChars + key.length > budget) {
      this.seenOnce.clear();
      this.seenChars = 0;
    }
    this.seenOnce.add(key);
    this.seenChars += key.length;
    return false;
  }

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.used;
  }
}
