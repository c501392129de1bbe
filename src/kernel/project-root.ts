/**
 * The project's root directory (the one holding package.json and data/). Found from this
 * module's own place, which is src/kernel when run from source and dist when compiled into one
 * file, so paths to bundled data hold either way.
 */
import fs from 'node:fs';
import path from 'node:path';

function findRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}

export const PROJECT_ROOT = findRoot(import.meta.dirname);
