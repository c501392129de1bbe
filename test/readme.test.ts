/**
 * The README's generated blocks (endpoint tables, encodings, settings) are what `npm run docs`
 * writes from the code, so the documentation cannot drift from the registry and the config.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sources } from '../sources/index.ts';
import { settings, type Setting } from '../src/config.ts';
import { createRegistry, sourceSettings } from '../src/kernel/registry.ts';
import { endpointsBlock, envBlock, README, renderReadme, replaceBlock, sixtyBlock } from '../scripts/readme.ts';
import { aliasPaths, SIXTY_ALIASES, SIXTY_UNSERVED } from '../src/http/sixty-aliases.ts';

const registry = createRegistry(sources);
const readme = fs.readFileSync(README, 'utf8');

function block(text: string, name: string): string {
  const start = text.indexOf(`<!-- ${name}:start -->`);
  const end = text.indexOf(`<!-- ${name}:end -->`);
  return start < 0 || end < start ? '' : text.slice(start, end);
}

describe('README.md', () => {
  it('has the generated blocks exactly as `npm run docs` writes them', () => {
    const expected = renderReadme(readme, registry);
    for (const name of ['endpoints', 'env', 'sixty']) {
      expect(block(readme, name), `README.md block "${name}" is stale: run \`npm run docs\` and commit README.md`).toBe(block(expected, name));
    }
    expect(readme === expected, 'README.md is stale: run `npm run docs` and commit README.md').toBe(true);
  });

  it('lists every route with a curl example, and every encoding', () => {
    const endpoints = endpointsBlock(registry);
    for (const s of registry.sources) for (const r of s.routes) expect(endpoints, r.path).toContain(`| \`/v2/apis${r.path}\`<br>`);
    expect(endpoints.match(/\| `curl '/g)?.length).toBe(registry.sources.reduce((n, s) => n + s.routes.length, 0));
    for (const e of ['json', 'text', 'markdown', 'html', 'rss', 'image', 'image-proxy', 'audio', 'audio-proxy']) expect(endpoints).toContain(`- **${e}**: `);
  });

  it('lists every 60s path that answers here, with its endpoint, and the ones that do not', () => {
    const sixty = sixtyBlock();
    expect(readme).toContain('## 60s compatibility');
    for (const a of SIXTY_ALIASES) {
      const row = sixty.split('\n').find((l) => l.startsWith(`| \`/v2${a.sixty}\``));
      expect(row, a.sixty).toBeDefined();
      for (const p of aliasPaths(a)) expect(row).toContain(`\`${p}\``);
    }
    for (const { sixty: p, reason } of SIXTY_UNSERVED) expect(sixty).toContain(`| \`/v2${p}\` | ${reason.replace(/\|/g, '\\|')} |`);
  });

  it('documents every setting of src/config.ts and every source setting, with its default', () => {
    const env = envBlock(registry);
    for (const s of [...(settings as readonly Setting[]), ...sourceSettings(registry)]) {
      const row = env.split('\n').find((l) => l.startsWith(`| \`${s.name}\` |`));
      expect(row, s.name).toBeDefined();
      if (s.default !== undefined && !s.secret) expect(row).toContain(`\`${s.default}\``);
    }
  });

  it('the generator replaces only between the markers and refuses a README without them', () => {
    const text = 'intro\n<!-- env:start -->\nold\n<!-- env:end -->\noutro\n';
    expect(replaceBlock(text, 'env', 'new')).toBe('intro\n<!-- env:start -->\nnew\n<!-- env:end -->\noutro\n');
    expect(() => replaceBlock('no markers', 'env', 'x')).toThrow(/no <!-- env:start -->/);
  });
});
