#!/usr/bin/env node
/**
 * Compiles the service into dist/ with esbuild: dist/main.js (the server) and dist/keys.js (the
 * key CLI), each one ES module holding the project's TypeScript and its packages, except those
 * listed in `external` below. Plain JavaScript, so it runs where tsx is not installed.
 * `--if-stale`: build only when a file under src/, sources/ or data/ (or package.json, or the
 * build's scripts) is newer than dist/, so `npm start` pays for a build once per change.
 * `--entry NAME=FILE --outdir DIR`: the same compilation of another entry point (the benchmark
 * compiles its server this way, so it measures what production runs).
 */
import fs from 'node:fs';
import path from 'node:path';
import { latin1Only } from './latin1-only.mjs';

const root = path.resolve(import.meta.dirname, '..');
const argValue = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const custom = argValue('--entry');
const outdir = path.resolve(root, argValue('--outdir') ?? 'dist');
const entries = custom ? Object.fromEntries([custom.split('=')]) : { main: 'src/main.ts', keys: 'src/cli/keys.ts' };
const outputs = Object.keys(entries).map((name) => path.join(outdir, `${name}.js`));

function newestInput() {
  // The build's own scripts count too: a change to how it compiles makes dist/ stale.
  let newest = Math.max(...['package.json', 'scripts/build.mjs', 'scripts/latin1-only.mjs'].map((f) => fs.statSync(path.join(root, f)).mtimeMs));
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.(ts|json)$/.test(entry.name)) newest = Math.max(newest, fs.statSync(full).mtimeMs);
    }
  };
  for (const dir of ['src', 'sources', 'data']) if (fs.existsSync(path.join(root, dir))) walk(path.join(root, dir));
  return newest;
}

function isStale() {
  const built = outputs.map((f) => (fs.existsSync(f) ? fs.statSync(f).mtimeMs : 0));
  return Math.min(...built) < newestInput();
}

if (process.argv.includes('--if-stale') && !isStale()) process.exit(0);

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  process.stderr.write('dist/ is missing or older than the source, and esbuild is not installed to build it: run `npm install` (with dev dependencies), then `npm run build`.\n');
  process.exit(1);
}
// The gateway's `undici` import resolves to src/kernel/undici-on-first-use.ts, which loads the real
// package (external) when a pool is first made: 1 MB less to parse at every start.
const undiciOnFirstUse = {
  name: 'undici-on-first-use',
  setup(build) {
    build.onResolve({ filter: /^undici$/ }, (args) =>
      args.importer.endsWith(path.join('src', 'gateway', 'upstream.ts')) ? { path: path.join(root, 'src/kernel/undici-on-first-use.ts') } : { path: 'undici', external: true },
    );
  },
};
const started = Date.now();
const result = await esbuild.build({
  absWorkingDir: root,
  entryPoints: entries,
  outdir,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.18',
  // Packages are bundled too: resolving and loading ~1,500 files of node_modules one by one (and
  // scanning each CommonJS file for its exports) was most of the start-up time. Native addons and
  // the packages loaded on first use (src/kernel/lazy-module.ts) stay outside.
  external: ['better-sqlite3', 'pg-native', 'cheerio', 'fontkit', 'pg', 'ioredis', 'swagger-ui-dist', 'chinese-days', 'tyme4ts', 'busboy', 'feed'],
  // Bundled CommonJS code calls require() for Node's own modules; an ES module has none of its own.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'warning',
  plugins: [undiciOnFirstUse],
  write: false,
});
// Latin-1 text: V8 keeps it at one byte a character (latin1-only.mjs).
for (const file of result.outputFiles) {
  fs.mkdirSync(path.dirname(file.path), { recursive: true });
  fs.writeFileSync(file.path, file.path.endsWith('.js') ? latin1Only(file.text) : file.contents);
}
process.stderr.write(`built ${path.relative(root, outdir) || outdir}/ in ${Date.now() - started} ms\n`);
