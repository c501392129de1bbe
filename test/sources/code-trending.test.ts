import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { list } from '../../sources/code-trending.ts';
import { describeDeclaredList } from '../support/declared-list-suite.ts';
import { startService, type TestService } from '../support/service.ts';
import { Upstream } from '../support/upstream.ts';

describeDeclaredList(list);

describe('code-trending periods', () => {
  const upstream = new Upstream();
  let svc: TestService;
  beforeAll(async () => {
    await upstream.start();
    upstream.serveFile('github.com', '/trending', 'github.com/trending.html');
    svc = await startService({ upstream });
  });
  afterAll(async () => {
    await svc?.close();
    await upstream.stop();
  });

  it('asks for the period named by since, and names the accepted values otherwise', async () => {
    expect((await svc.get('/v2/apis/code-trending?since=weekly')).status).toBe(200);
    expect(upstream.requests.at(-1)?.query.get('since')).toBe('weekly');
    const bad = await svc.get('/v2/apis/code-trending?since=yearly');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/"since".*daily.*weekly.*monthly/);
    const dh = (await (await svc.get('/dailyhot/github?type=monthly')).json()) as { type: string };
    expect(dh.type).toBe('月榜');
    expect(upstream.requests.at(-1)?.query.get('since')).toBe('monthly');
  });
});
