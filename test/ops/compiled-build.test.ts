/**
 * The compiled service (scripts/build.mjs, what `npm start` and the Docker image run) starts,
 * answers and stops: built into a directory of its own under dist/ (the bundle finds the
 * project's root, data/ and external packages from there), run as `node main.js` on a free port
 * with a new SQLite file and the scheduler off, asked /healthz and two local endpoints (one
 * using a package loaded on first use, from node_modules), then sent
 * SIGTERM. Nothing here is timed.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './support.ts';

describe('the compiled build', () => {
  let outdir: string;
  let dataDir: string;
  let child: ChildProcess;
  let base: string;
  const lines: Record<string, unknown>[] = [];
  let exited: Promise<number | null>;

  beforeAll(async () => {
    fs.mkdirSync(path.join(ROOT, 'dist'), { recursive: true });
    outdir = fs.mkdtempSync(path.join(ROOT, 'dist', 'build-test-'));
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compiled-'));
    execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs'), '--entry', 'main=src/main.ts', '--outdir', outdir], { stdio: 'pipe' });
    child = spawn(process.execPath, [path.join(outdir, 'main.js')], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', DB_PATH: path.join(dataDir, 'app.sqlite'), SCHEDULER_ENABLED: 'false', LOG_LEVEL: 'info' },
    });
    exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    // The first log line naming a port says where it listens (pino writes one JSON object a line).
    const port = await new Promise<number>((resolve, reject) => {
      let pending = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        pending += chunk.toString();
        let nl;
        while ((nl = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, nl);
          pending = pending.slice(nl + 1);
          try {
            const entry = JSON.parse(line) as Record<string, unknown>;
            lines.push(entry);
            if (typeof entry.port === 'number') resolve(entry.port);
          } catch {
            /* not a log line */
          }
        }
      });
      void exited.then((code) => reject(new Error(`the compiled service exited (${code}) before listening: ${stderr}`)));
    });
    base = `http://127.0.0.1:${port}`;
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    if (outdir) fs.rmSync(outdir, { recursive: true, force: true });
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('is Latin-1 text, which V8 holds at one byte a character (scripts/latin1-only.mjs)', () => {
    expect(fs.readFileSync(path.join(outdir, 'main.js'), 'utf8')).not.toMatch(/[^\x00-\xff]/);
  });

  it('answers /healthz and a local endpoint, then stops on SIGTERM', async () => {
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    await health.arrayBuffer();

    const res = await fetch(`${base}/v2/apis/hash?content=a`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const body = (await res.json()) as { code: number; data: { md5: string; sha256: string } };
    expect(body.code).toBe(200);
    expect(body.data.md5).toBe(createHash('md5').update('a').digest('hex'));
    expect(body.data.sha256).toBe(createHash('sha256').update('a').digest('hex'));

    // tyme4ts stays out of the bundle and is loaded from node_modules on this first use (lazy-module.ts).
    const lunar = await fetch(`${base}/v2/apis/lunar?date=2026-02-17`);
    expect(lunar.status).toBe(200);
    const day = (await lunar.json()) as { data: { lunar: { desc_short: string } } };
    expect(day.data.lunar.desc_short).toBe('农历丙午年正月初一');

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(lines.some((l) => l.msg === 'shutting down' && l.signal === 'SIGTERM')).toBe(true);
  }, 60_000);
});
