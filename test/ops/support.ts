/**
 * Helpers of the operations tests: a stand-in model gateway for /v1, the Prometheus text parser,
 * headless Chromium (skipped with a message when it is absent, unless REQUIRE_BROWSER=1), and a
 * service started with a captured log.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { createService, type Service, type ServiceOptions } from '../../src/service.ts';
import { LocalHttpServer } from '../support/local-http-server.ts';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const ARTIFACTS = path.join(ROOT, 'test-artifacts');
export const ADMIN_TOKEN = 'test-admin-token-0123456789';

/** A minimal upstream model gateway: the model list and chat completions with usage. */
export class AiUpstream extends LocalHttpServer {
  readonly requests: { method: string; path: string; authorization: string | undefined }[] = [];

  protected receive(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      this.requests.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization });
      res.setHeader('content-type', 'application/json');
      if (req.method === 'GET' && req.url === '/v1/models') {
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'gpt-test', object: 'model', created: 1_700_000_000, owned_by: 'test' }] }));
        return;
      }
      if (req.method === 'POST' && req.url === '/v1/chat/completions') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { model?: string };
        res.end(
          JSON.stringify({
            id: 'chatcmpl-1',
            object: 'chat.completion',
            created: 1_700_000_000,
            model: body.model ?? 'gpt-test',
            choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18, prompt_tokens_details: { cached_tokens: 4, audio_tokens: 2 }, completion_tokens_details: { reasoning_tokens: 3, audio_tokens: 0 } },
          }),
        );
        return;
      }
      res.statusCode = 404;
      res.end(JSON.stringify({ error: { message: 'not here', type: 'invalid_request_error', code: 'unknown_url' } }));
    });
  }
}

/** Samples of a Prometheus text exposition: `name{labels} value` → value. */
export function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    out.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return out;
}

/** The value of one sample, its labels given in any order; undefined when absent. */
export function sample(metrics: Map<string, number>, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const [key, value] of metrics) {
    const m = /^([^{]+)(?:\{(.*)\})?$/.exec(key);
    if (!m || m[1] !== name) continue;
    const have: string[] = (m[2] ?? '').match(/\w+="(?:[^"\\]|\\.)*"/g) ?? [];
    if (want.length === have.length && want.every((w) => have.includes(w))) return value;
  }
  return undefined;
}

/** Retry an assertion briefly (metrics of a response are counted when its socket work ends). */
export async function eventually(check: () => Promise<void>, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

export interface LoggedService {
  svc: Service;
  base: string;
  lines: string[];
}

/** The real service on an in-memory database with its JSON-lines log captured. */
export async function startLoggedService(env: Record<string, string>, opts: Omit<ServiceOptions, 'env' | 'logDestination'> = {}): Promise<LoggedService> {
  const lines: string[] = [];
  const svc = createService({
    ...opts,
    env: { DB_PATH: ':memory:', SCHEDULER_ENABLED: 'false', LOG_LEVEL: 'info', HTTP_RETRY: '0', HTTP_TIMEOUT_MS: '3000', ...env },
    logDestination: { write: (s: string) => void lines.push(...s.split('\n').filter(Boolean)) },
  });
  const port = await svc.listen(0, '127.0.0.1');
  return { svc, base: `http://127.0.0.1:${port}`, lines };
}

// --- headless Chromium --------------------------------------------------------------------------

/** Debian's chromium; CHROMIUM_PATH overrides it (e.g. to check the skip path). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const BROWSER_REQUIRED = process.env.REQUIRE_BROWSER === '1';
export const HAVE_BROWSER = fs.existsSync(CHROMIUM);
export const NO_BROWSER_MESSAGE = `headless Chromium not found at ${CHROMIUM}: browser tests skipped (apt-get install chromium; set REQUIRE_BROWSER=1 to make this a failure)`;

export const BROWSER_MISSING_REQUIRED = `headless Chromium not found at ${CHROMIUM}, and REQUIRE_BROWSER=1 asks for the browser tests: install it (apt-get install -y --no-install-recommends chromium)`;

export async function launchBrowser(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
