/**
 * Issue 20 item 6: the image-proxy and audio-proxy encodings fetch a URL that an upstream's data
 * names, so they get og's address checks (private, loopback, link-local, and redirects to them).
 * A digest whose `image`, and a recording whose audio URL, is `http://127.0.0.1:<port>/secret`
 * must never be read back to an anonymous caller.
 *
 * The data is fetched by one instance through the upstream mirror (60s's day file and the singing
 * site's page in their real formats, test/fixtures/upstream) into a SQLite file; a second instance
 * on that file, without the mirror, serves it as a deployment does, so its proxy requests go
 * where the stored URLs point.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SEEDS } from '../../sources/changya.ts';
import { TestClock } from '../support/clock.ts';
import { startService, tempDbPath, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';

const DIGEST_HOST = '60s-static.viki.moe';
const SINGING_HOST = 'm.singduck.cn';
const SEED = DEFAULT_SEEDS[0]!;
/** 10:00 Asia/Shanghai on 2026-11-20, the day of the recorded digest. */
const START = Date.parse('2026-11-20T02:00:00Z');
const SECRET = 'internal-only: db password hunter2';

describe('image-proxy and audio-proxy refuse internal addresses named by stored data', () => {
  const upstream = new Upstream();
  const clock = new TestClock(START);
  const secretHits: string[] = [];
  const secretServer = http.createServer((req, res) => {
    secretHits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'image/png' }).end(SECRET);
  });
  const dbPath = tempDbPath();
  let secretUrl = '';
  let svc: TestService;

  beforeAll(async () => {
    await new Promise<void>((resolve) => secretServer.listen(0, '127.0.0.1', resolve));
    secretUrl = `http://127.0.0.1:${(secretServer.address() as AddressInfo).port}/secret`;
    await upstream.start();
    const digest = JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, DIGEST_HOST, '60s', '2026-11-20.json'), 'utf8')) as Record<string, unknown>;
    upstream.serve(DIGEST_HOST, '/60s/2026-11-20.json', { body: { ...digest, image: secretUrl } });
    const page = fs
      .readFileSync(path.join(FIXTURE_DIR, SINGING_HOST, 'user-piece', `cont_${SEED}.html`), 'utf8')
      .replace(/https(?::\/\/|%3A%2F%2F)audio-cdn\.api\.singduck\.cn(?:\/|%2F)ugc(?:\/|%2F)fixture\d+\.m4a/g, secretUrl);
    upstream.serve(SINGING_HOST, `/user-piece/cont_${SEED}`, { headers: { 'content-type': 'text/html; charset=utf-8' }, body: page });

    const filler = await startService({ upstream, now: clock.now, env: { DB_PATH: dbPath, SOURCE_CHANGYA_SEEDS: SEED } });
    try {
      const digestRes = await filler.get('/v2/apis/60s');
      expect(digestRes.status).toBe(200);
      expect(((await digestRes.json()) as { data: { image: string } }).data.image).toBe(secretUrl);
      const piece = await filler.get('/v2/apis/changya?encoding=json');
      expect(piece.status).toBe(200);
      expect(((await piece.json()) as { data: { audio: { url: string } } }).data.audio.url).toBe(secretUrl);
    } finally {
      await filler.close();
    }
    svc = await startService({ now: clock.now, env: { DB_PATH: dbPath, SOURCE_CHANGYA_SEEDS: SEED } });
  });
  afterAll(async () => {
    await svc?.close();
    await upstream.stop();
    secretServer.closeAllConnections();
    await new Promise<void>((resolve) => secretServer.close(() => resolve()));
    fs.rmSync(path.dirname(dbPath), { recursive: true, force: true });
  });

  it.each([
    ['image-proxy', '/v2/apis/60s?encoding=image-proxy'],
    ['audio-proxy', '/v2/apis/changya?encoding=audio-proxy'],
  ])('%s answers 502 naming the refused address, and never connects to it', async (_encoding, url) => {
    const res = await svc.get(url);
    const body = await res.text();
    expect(res.status).toBe(502);
    expect(body).toMatch(/127\.0\.0\.1 is a loopback address/);
    expect(body).not.toContain(SECRET);
    expect(secretHits).toEqual([]);
  });

  it('the stored data itself is still served (the json names the URL; nothing is fetched)', async () => {
    const res = await svc.get('/v2/apis/60s');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-cache')).toBe('HIT');
    expect(secretHits).toEqual([]);
  });
});
