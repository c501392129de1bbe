/**
 * Real recorded upstream payloads in ../shared/fixtures/upstream (beside the checkout, present
 * in CI). They are read at test time, never copied into the project. Conformance suites use
 * `describe.skipIf(!hasRecordings(dir))`, which says why when the folder is absent.
 */
import fs from 'node:fs';
import path from 'node:path';

export const RECORDINGS_DIR = path.resolve(import.meta.dirname, '../../../shared/fixtures/upstream');

/** Whether the recordings of one upstream exist; logs why the suite is skipped when not. */
export function hasRecordings(dir: string): boolean {
  const full = path.join(RECORDINGS_DIR, dir);
  const ok = fs.existsSync(full);
  if (!ok) console.info(`Skipping the conformance tests for "${dir}": no recorded payloads at ${full} (they live beside the checkout in CI).`);
  return ok;
}

export function readRecording(file: string): Buffer {
  return fs.readFileSync(path.join(RECORDINGS_DIR, file));
}

export function readRecordingJson(file: string): unknown {
  return JSON.parse(readRecording(file).toString('utf8')) as unknown;
}
