/**
 * Stored data in a source's current shape. Data outlives the code that wrote it: a release that
 * changes a source's shape finds the old shape in the cached snapshot, the history rows and the
 * archive. Every read of stored data passes here: the source's `migrate` upgrades it, `validate`
 * judges the result, and the upgraded JSON text (with its own hash) replaces the stored one, so
 * every encoding and cache sees only the current shape. Judged once per payload and source.
 */
import { sha1 } from './digest.ts';
import type { AnySource } from './source.ts';

/** A stored payload as the source makes it today. */
export interface CurrentData {
  payload: string;
  /** The stored hash when the payload was already current, else the sha1 of the upgraded text. */
  hash: string;
  data: unknown;
  /** Whether `migrate` changed the data. */
  upgraded: boolean;
}

const MEMO_LIMIT = 1000;

export class StoredData {
  private readonly memo = new WeakMap<AnySource, Map<string, CurrentData | null>>();

  /**
   * The payload in the source's current shape, or undefined when the source cannot read it (its
   * `migrate` gives up or `validate` rejects the result). `hash` names the payload for the memo
   * (the store's payload hash); without one the payload is judged afresh.
   */
  current(source: AnySource, payload: string, hash?: string): CurrentData | undefined {
    let memo = this.memo.get(source);
    if (!memo) this.memo.set(source, (memo = new Map()));
    if (hash !== undefined) {
      const known = memo.get(hash);
      if (known !== undefined) return known ?? undefined;
    }
    const judged = judge(source, payload, hash);
    if (hash !== undefined) {
      if (memo.size > MEMO_LIMIT) memo.clear();
      memo.set(hash, judged ?? null);
    }
    return judged;
  }

  /** Like `current`, but data the source cannot read is kept as stored (an archive serves what it has). */
  currentOrStored(source: AnySource, payload: string, hash?: string): CurrentData {
    return this.current(source, payload, hash) ?? { payload, hash: hash ?? sha1(payload), data: JSON.parse(payload) as unknown, upgraded: false };
  }
}


function judge(source: AnySource, payload: string, hash: string | undefined): CurrentData | undefined {
  try {
    const stored = JSON.parse(payload) as unknown;
    const data = 'migrate' in source && source.migrate ? source.migrate(stored) : stored;
    if (data === undefined) return undefined;
    if ('validate' in source && source.validate(data) !== undefined) return undefined;
    if (data === stored) return { payload, hash: hash ?? sha1(payload), data, upgraded: false };
    const text = JSON.stringify(data);
    return { payload: text, hash: sha1(text), data, upgraded: true };
  } catch {
    return undefined;
  }
}
