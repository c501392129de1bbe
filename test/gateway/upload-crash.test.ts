/**
 * Issue 12, defect 1: a multipart body that ends inside a part, a client that drops mid-upload
 * and malformed forms, sent over raw sockets to every multipart route of the real service
 * process. Each gets a 4xx (or nothing, when the client left) and the process keeps serving.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelUpstream } from './model-upstream.ts';
import { rawExchange, spawnService, type ServiceProcess } from './process.ts';

const ROUTES = ['/v1/images/edits', '/v1/images/variations', '/v1/audio/transcriptions', '/v1/audio/translations'];
const B = 'XB';
const FILE_PART = `--${B}\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`;
const MODEL_PART = `--${B}\r\nContent-Disposition: form-data; name="model"\r\n\r\ngpt-image-1\r\n`;

let svc: ServiceProcess;
let upstream: ModelUpstream;
let key: string;

function request(path: string, body: string, headers: Record<string, string> = {}): string {
  const head = { Host: 'x', Authorization: `Bearer ${key}`, 'Content-Type': `multipart/form-data; boundary=${B}`, 'Content-Length': String(Buffer.byteLength(body)), ...headers };
  return `POST ${path} HTTP/1.1\r\n${Object.entries(head)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n${body}`;
}

beforeAll(async () => {
  upstream = await new ModelUpstream().start();
  svc = await spawnService({ AI_UPSTREAM_BASE_URL: upstream.url, AI_UPSTREAM_API_KEY: 'upstream-secret' });
  key = await svc.createKey();
}, 90_000);
afterAll(async () => {
  await svc?.stop();
  await upstream?.stop();
});

describe.each(ROUTES)('%s survives broken uploads', (path) => {
  it('a body that ends inside a file part: 400, the process lives on', async () => {
    const res = await rawExchange(svc.port, [request(path, `${MODEL_PART}${FILE_PART}AAAA`)]);
    expect(res.status, res.text).toBe(400);
    expect(res.text).toMatch(/multipart/i);
    expect(svc.alive(), svc.output.join('\n')).toBe(true);
  });

  it('a chunked body that ends inside a file part: 400', async () => {
    const body = `${FILE_PART}AAAA`;
    const chunked = `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    const head = request(path, '', { 'Transfer-Encoding': 'chunked' }).replace(/Content-Length: 0\r\n/, '');
    const res = await rawExchange(svc.port, [head, chunked]);
    expect(res.status, res.text).toBe(400);
    expect(svc.alive(), svc.output.join('\n')).toBe(true);
  });

  it('a client that drops the connection mid-upload: the process lives on', async () => {
    const full = `${MODEL_PART}${FILE_PART}${'A'.repeat(50_000)}\r\n--${B}--\r\n`;
    const head = request(path, full);
    await rawExchange(svc.port, [head.slice(0, head.length - 30_000)], { destroyAfterMs: 150 });
    await rawExchange(svc.port, [head.slice(0, head.indexOf('\r\n\r\n') + 4 + 300)], { destroyAfterMs: 50 });
    expect(svc.alive(), svc.output.join('\n')).toBe(true);
  });

  it('malformed forms: 4xx, never a 5xx or a crash', async () => {
    const bodies = [
      `${FILE_PART.slice(0, -4)}`, // part headers never end
      'not a multipart body at all',
      `--${B}\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\n${'X-Junk: y\r\n'.repeat(3000)}\r\nAAAA\r\n--${B}--\r\n`,
    ];
    for (const body of bodies) {
      const res = await rawExchange(svc.port, [request(path, body)]);
      expect(res.status, `${JSON.stringify(body.slice(0, 60))}: ${res.text}`).toBeGreaterThanOrEqual(400);
      expect(res.status, res.text).toBeLessThan(500);
    }
    const noBoundary = await rawExchange(svc.port, [request(path, `${FILE_PART}AAAA\r\n--${B}--\r\n`, { 'Content-Type': 'multipart/form-data; charset=utf-8' })]);
    expect(noBoundary.status, noBoundary.text).toBe(400);
    expect(svc.alive(), svc.output.join('\n')).toBe(true);
  });
});

it('after all of it the service still answers, uploads included', async () => {
  expect(svc.alive(), svc.output.join('\n')).toBe(true);
  expect((await fetch(`${svc.base}/healthz`)).status).toBe(200);
  const form = new FormData();
  form.set('model', 'gpt-image-1');
  form.set('prompt', 'make it blue');
  form.set('image', new Blob([Buffer.alloc(64, 1)], { type: 'image/png' }), 'a.png');
  const res = await fetch(`${svc.base}/v1/images/edits`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  expect(res.status).toBe(200);
  expect(((await res.json()) as { echo: { files: { size: number }[] } }).echo.files[0]!.size).toBe(64);
});
