/**
 * Conformance tests read the real recorded payloads under ../shared/fixtures/upstream (beside the
 * checkout in CI). They are never copied into the project; when the folder is absent the tests
 * skip and say why.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe } from 'vitest';

export const SHARED_FIXTURES = path.resolve(import.meta.dirname, '../../../shared/fixtures/upstream');

/** `describe` over one recording folder (e.g. `bing`), skipped with a console note when it is absent. */
export function describeConformance(folder: string, title: string, body: (dir: string) => void): void {
  const dir = path.join(SHARED_FIXTURES, folder);
  const present = fs.existsSync(dir);
  if (!present) console.info(`[conformance] skipped "${title}": ${dir} does not exist (the real recordings sit beside the checkout in CI only)`);
  describe.skipIf(!present)(title, () => body(dir));
}

/** A recording's bytes. */
export function readRecording(dir: string, file: string): Buffer {
  return fs.readFileSync(path.join(dir, file));
}
