import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import changya, { DEFAULT_SEEDS, MAX_PIECES, parsePage, publishMs, type Piece } from '../../sources/changya.ts';
import { SourceError } from '../../src/kernel/errors.ts';
import { startService, type TestService } from '../support/service.ts';
import { FIXTURE_DIR, Upstream } from '../support/upstream.ts';
import { expectNoServerErrors, getJson } from './_corpus.ts';

const HOST = 'm.singduck.cn';
const AUDIO_HOST = 'audio-cdn.api.singduck.cn';
const page = (seed: string) => fs.readFileSync(path.join(FIXTURE_DIR, HOST, 'user-piece', `cont_${seed}.html`), 'utf8');

describe('changya parse', () => {
  it('reads props.pageProps.pieces from script#__NEXT_DATA__, decoding audio URLs and skipping pieces without audio', () => {
    const pieces = parsePage(page(DEFAULT_SEEDS[0]!));
    expect(pieces).toHaveLength(2);
    expect(pieces[0]).toEqual({
      piece_id: 'fixture000',
      user: { nickname: '唱歌的人1', gender: 'F', gender_text: 'female', avatar: 'https://img-cdn.api.singduck.cn/user-img/1.jpg', avatar_url: 'https://img-cdn.api.singduck.cn/user-img/1.jpg' },
      song: { name: '晚风', singer: '测试歌手', lyrics: ['第一句歌词 1', '第二句歌词 1', '第三句歌词 1'] },
      audio: {
        url: 'https://audio-cdn.api.singduck.cn/ugc/fixture000.m4a',
        duration: 30973,
        duration_sec: 31,
        like_count: 101,
        link: 'https://m.singduck.cn/user-piece/cont_fixture000',
        publish: '2023/03/31 18:46:36',
        publish_at: Date.parse('2023-03-31T18:46:36+08:00'),
      },
    });
    expect(pieces[1]?.audio).toMatchObject({ url: 'https://audio-cdn.api.singduck.cn/ugc/fixture001.m4a', publish_at: 1680259596002 });
    expect(pieces[1]?.user.gender).toBe('M');
    expect(pieces[1]?.user.gender_text).toBe('male');
  });

  it('refuses pages without the data and drops unsafe audio URLs', () => {
    expect(() => parsePage('<html><body>login</body></html>')).toThrow(SourceError);
    expect(() => parsePage('<script id="__NEXT_DATA__">{not json</script>')).toThrow(/not JSON/);
    expect(() => parsePage('<script id="__NEXT_DATA__">{"props":{}}</script>')).toThrow(/pieces/);
    const unsafe = `<script id="__NEXT_DATA__" type="application/json">${JSON.stringify({ props: { pageProps: { pieces: [{ ugcId: 'x', audioUrl: 'javascript:alert(1)' }, { ugcId: 'y', audioUrl: '%E0%A4%A' }] } } })}</script>`;
    expect(parsePage(unsafe)).toEqual([]);
  });

  it('reads publish times in ms, s or Shanghai wall-clock form', () => {
    expect(publishMs(1680259596000)).toBe(1680259596000);
    expect(publishMs('1680259596')).toBe(1680259596000);
    expect(publishMs('2023/03/31 18:46:36')).toBe(Date.parse('2023-03-31T10:46:36Z'));
    expect(publishMs('')).toBeNull();
    expect(publishMs('soon')).toBeNull();
    expect(publishMs(null)).toBeNull();
  });

  it('merges new pieces before the previous ones, without duplicates, capped', async () => {
    const feed = changya.mode === 'local' ? changya.feed! : undefined!;
    const upstream = new Upstream();
    await upstream.start();
    const svc = await startService({ upstream, env: { SOURCE_CHANGYA_SEEDS: DEFAULT_SEEDS[1]! } });
    try {
      const old: Piece[] = Array.from({ length: MAX_PIECES }, (_, i) => ({ ...parsePage(page(DEFAULT_SEEDS[0]!))[0]!, piece_id: `old${i}` }));
      old[0]!.piece_id = 'fixture010'; // same id as a new piece: the new copy wins
      const data = await feed.fetch({
        http: svc.engine.http(changya),
        signal: AbortSignal.timeout(5_000),
        log: svc.log,
        now: () => new Date(),
        env: (n) => svc.engine.env(changya, n),
        previous: { data: { items: old }, fetchedAt: 0 },
      });
      expect(data.items).toHaveLength(MAX_PIECES);
      expect(data.items.slice(0, 2).map((p) => p.piece_id)).toEqual(['fixture010', 'fixture011']);
      expect(data.items.filter((p) => p.piece_id === 'fixture010')).toHaveLength(1);
      expect(data.items[2]?.piece_id).toBe('old1');
    } finally {
      await svc.close();
      await upstream.stop();
    }
  });
});

describe('changya through the server', () => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    svc = await startService({ upstream });
  });
  afterEach(() => {
    expect(upstream.unmatched).toEqual([]);
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it('answers with the audio by default: a 302 to an http(s) audio URL of a fetched piece', async () => {
    const r = await svc.get('/v2/apis/changya');
    expect(r.status).toBe(302);
    expect(r.headers.get('location')).toMatch(/^https:\/\/audio-cdn\.api\.singduck\.cn\/ugc\/fixture\d+\.m4a$/);
    // 3 random seed pages per run, all from the default list.
    const hits = upstream.hits(HOST, '/user-piece/');
    expect(hits).toHaveLength(3);
    for (const h of hits) expect(DEFAULT_SEEDS.map((s) => `/user-piece/cont_${s}`)).toContain(h.path);
  });

  it('json, text and markdown give the details', async () => {
    const { status, body } = await getJson<Piece & { total: number; updated_at: number }>(svc, '/v2/apis/changya?encoding=json');
    expect(status).toBe(200);
    expect(body.data.total).toBe(6);
    expect(body.data.audio.url).toMatch(/^https:\/\//);
    expect(body.data.song.name.length).toBeGreaterThan(0);
    expect(String(body.data.updated_at)).toMatch(/^\d{13}$/);
    // 60s's text is the bare audio URL.
    const text = await (await svc.get('/v2/apis/changya?encoding=text')).text();
    expect(text).toMatch(/^https:\/\/audio-cdn\S+$/);
    const md = await svc.get('/v2/apis/changya?encoding=markdown');
    expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(await md.text()).toMatch(/^# 🎤 /);
  });

  it('audio-proxy streams the audio bytes', async () => {
    upstream.serve(AUDIO_HOST, /^\/ugc\//, { headers: { 'content-type': 'audio/mp4' }, body: Buffer.from('fake-audio') });
    const r = await svc.get('/v2/apis/changya?encoding=audio-proxy');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('audio/mp4');
    expect(await r.text()).toBe('fake-audio');
  });

  it('lists its encodings; others are 400s; odd inputs never 500', async () => {
    const r = await getJson(svc, '/v2/apis/changya?encoding=html');
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('audio, audio-proxy, json, text, markdown');
    await expectNoServerErrors(svc, '/v2/apis/changya?encoding=json', ['id', 'x']);
  });
});

describe('changya before any piece was fetched', () => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    upstream.serve(HOST, /.*/, { status: 502, body: 'bad gateway' });
    svc = await startService({ upstream });
  });
  afterAll(async () => {
    await svc.close();
    await upstream.stop();
  });

  it('answers 503 with Retry-After and an honest message (nothing is bundled), in every encoding', async () => {
    const audio = await svc.get('/v2/apis/changya');
    expect(audio.status).toBe(503);
    expect(audio.headers.get('retry-after')).toBe('60');
    expect(await audio.text()).toMatch(/none is bundled/);
    const json = await getJson(svc, '/v2/apis/changya?encoding=json');
    expect(json.status).toBe(503);
    expect(json.body).toMatchObject({ code: 503, data: null });
  });
});
