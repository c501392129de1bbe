/**
 * The load generator of the benchmark: wrk (Debian's package) when it is installed, autocannon
 * otherwise (it saturates near 17k req/s on this machine, so it makes a fast server look no
 * faster than the bare one). A run asks one path over and over, or a new path each request
 * (`unique`: the prefix followed by a counter).
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

export interface LoadResult {
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
}

export interface LoadOptions {
  connections: number;
  durationSec: number;
  /** Each request's path is this prefix and a counter (a new text, a new content). */
  unique?: boolean;
  /** Request headers, e.g. the Accept of a browser. */
  headers?: Record<string, string>;
}

function hasWrk(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (err) {
    // wrk --version exits 1 after printing its version.
    return (err as { status?: number }).status === 1;
  }
}

export const GENERATOR = process.env.BENCH_LOAD === 'autocannon' || !hasWrk() ? 'autocannon' : 'wrk';

const toMs = (value: string, unit: string) => Number(value) * ({ us: 0.001, ms: 1, s: 1000 } as Record<string, number>)[unit]!;

function runWrk(base: string, pathOrPrefix: string, o: LoadOptions): Promise<LoadResult> {
  const args = ['-t1', `-c${o.connections}`, `-d${o.durationSec}s`, '--latency', ...Object.entries(o.headers ?? {}).flatMap(([k, v]) => ['-H', `${k}: ${v}`])];
  let script: string | undefined;
  if (o.unique) {
    script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wrk-')), 'unique.lua');
    fs.writeFileSync(script, `local n = 0\nrequest = function()\n  n = n + 1\n  return wrk.format(nil, ${JSON.stringify(pathOrPrefix)} .. n)\nend\n`);
    args.push('-s', script);
  }
  args.push(o.unique ? base : `${base}${pathOrPrefix}`);
  return new Promise((resolve, reject) => {
    execFile('wrk', args, { maxBuffer: 1 << 20 }, (err, stdout) => {
      if (script) fs.rmSync(path.dirname(script), { recursive: true, force: true });
      if (err) return reject(err);
      const num = (re: RegExp) => Number(re.exec(stdout)?.[1] ?? NaN);
      const lat = (p: string) => {
        const m = new RegExp(`^\\s*${p}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(stdout);
        return m ? toMs(m[1]!, m[2]!) : NaN;
      };
      resolve({
        requests: num(/(\d+) requests in/),
        rps: num(/Requests\/sec:\s+([\d.]+)/),
        p50Ms: lat('50'),
        p99Ms: lat('99'),
        non2xx: num(/Non-2xx or 3xx responses: (\d+)/) || 0,
      });
    });
  });
}

async function runAutocannon(base: string, pathOrPrefix: string, o: LoadOptions): Promise<LoadResult> {
  let n = 0;
  const r = await autocannon({
    url: base,
    connections: o.connections,
    duration: o.durationSec,
    ...(o.headers ? { headers: o.headers } : {}),
    requests: [o.unique ? { setupRequest: (req) => ({ ...req, path: `${pathOrPrefix}${++n}` }) } : { path: pathOrPrefix }],
  });
  return { requests: r.requests.total, rps: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99, non2xx: r.non2xx };
}

export function load(base: string, pathOrPrefix: string, o: LoadOptions): Promise<LoadResult> {
  return GENERATOR === 'wrk' ? runWrk(base, pathOrPrefix, o) : runAutocannon(base, pathOrPrefix, o);
}

/** CPU time (user + system, µs) a process has used, from /proc/<pid>/stat. */
export function processCpuUs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after "(comm) ".
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Resident memory of a process now (KiB), from /proc/<pid>/status. */
export function processRssKb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
}
