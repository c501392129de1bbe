/**
 * The real Gemini CLI (`gemini -p`, GOOGLE_GEMINI_BASE_URL = our root, the key as GEMINI_API_KEY,
 * sent in x-goog-api-key) through the gateway: to an upstream that speaks Gemini (native) and to
 * one that speaks only chat completions (translated), and without `-m`, where the CLI first asks
 * a model to route the prompt (a non-streamed call whose answer must be JSON of a schema).
 * Offline: usage statistics, telemetry and update checks are off in its settings file, and a
 * refusing HTTPS_PROXY with NO_PROXY=127.0.0.1 shows that nothing else leaves the machine. The
 * CLI is not a project dependency: `.ci/run` installs the pinned version into
 * GEMINI_CLI_DIR (default ~/.cache/apis-ci/gemini-cli); without it this test is skipped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { chatTextStream, installedCli, runCli, useCliRig, type CliRun as Run } from './cli-support.ts';
import { makeKey, startGateway } from './helpers.ts';
import { GeminiUpstream, valueFor } from './vendor-upstreams.ts';

const { bin: GEMINI, installed } = installedCli({ name: 'the Gemini CLI', dirVar: 'GEMINI_CLI_DIR', folder: 'gemini-cli', bin: 'gemini', requireVar: 'REQUIRE_GEMINI_CLI', testFile: 'gemini-cli.test.ts' });

const UPSTREAM_KEY = 'vendor-upstream-key';

describe.skipIf(!installed)('Gemini CLI through the gateway', () => {
  const rig = useCliRig({ vendor: () => new GeminiUpstream(UPSTREAM_KEY), vendorRoute: { name: 'gemini', api: ['gemini'], models: ['gemini-*'] }, upstreamKey: UPSTREAM_KEY, homePrefix: 'gemini-cli-home-' });

  beforeAll(() => {
    fs.mkdirSync(path.join(rig.home, '.gemini'));
    fs.writeFileSync(
      path.join(rig.home, '.gemini', 'settings.json'),
      JSON.stringify({
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
        security: { auth: { selectedType: 'gemini-api-key' } },
      }),
    );
  });

  function gemini(args: string[], target: { base: string; key: string } = { base: rig.gateway.base, key: rig.key }): Promise<Run> {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: rig.home,
      GOOGLE_GEMINI_BASE_URL: target.base,
      GEMINI_API_KEY: target.key,
      GEMINI_CLI_NO_RELAUNCH: 'true',
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      ...rig.proxy.env(),
    };
    return runCli(GEMINI, ['-p', 'Say hello.', '--output-format', 'json', ...args], { cwd: rig.home, env, timeoutMs: 90_000 });
  }

  const response = (run: Run): string => {
    try {
      return (JSON.parse(run.stdout) as { response: string }).response;
    } catch {
      throw new Error(`gemini printed no JSON (exit ${run.code}): ${run.stdout.slice(0, 500)} ${run.stderr.slice(0, 1500)}`);
    }
  };

  const generateCalls = (u: GeminiUpstream) => u.requests.filter((r) => /:(stream)?[gG]enerateContent$/.test(r.path)).map((r) => ({ path: r.path, body: JSON.parse(r.body.toString()) as { generationConfig?: { responseJsonSchema?: unknown } } }));

  it('native to a Gemini upstream with -m: the stream as it comes', { timeout: 120_000 }, async () => {
    rig.vendor.reset();
    const run = await gemini(['-m', 'gemini-2.5-flash']);
    expect(response(run)).toBe('Hello from gemini-2.5-flash');
    const calls = generateCalls(rig.vendor);
    expect(calls.map((c) => c.path)).toEqual(['/v1beta/models/gemini-2.5-flash:streamGenerateContent']);
    expect(rig.vendor.requests.every((r) => r.headers['x-goog-api-key'] === UPSTREAM_KEY)).toBe(true);
    expect(rig.proxy.count).toBe(0);
  });

  it('native without -m: the routing call gets JSON of its schema, then the chosen model answers', { timeout: 120_000 }, async () => {
    rig.vendor.reset();
    const run = await gemini([]);
    expect(response(run)).toMatch(/^Hello from gemini-/);
    const calls = generateCalls(rig.vendor);
    expect(calls[0]!.path).toMatch(/:generateContent$/);
    expect(calls[0]!.body.generationConfig?.responseJsonSchema).toBeDefined();
    expect(calls.at(-1)!.path).toMatch(/:streamGenerateContent$/);
    expect(rig.proxy.count).toBe(0);
  });

  it('translated to a chat-only upstream, with -m and without (the routing schema as response_format)', { timeout: 180_000 }, async () => {
    rig.chatOnly.reset();
    rig.chatOnly.script('POST', '/v1/chat/completions', (req, res) => {
      const body = JSON.parse(req.body.toString()) as { model: string; stream?: boolean; response_format?: { type: string; json_schema?: { schema?: unknown } } };
      const text = body.response_format?.type === 'json_schema' ? JSON.stringify(valueFor(body.response_format.json_schema?.schema)) : 'Hello from the chat upstream';
      if (body.stream) return chatTextStream(res, body.model, text);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'chatcmpl-g', object: 'chat.completion', created: 1735689600, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage: { prompt_tokens: 900, completion_tokens: 4, total_tokens: 904 } }));
    });
    const withModel = await gemini(['-m', 'gpt-4o']);
    expect(response(withModel)).toBe('Hello from the chat upstream');
    const sent = rig.chatOnly.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => JSON.parse(r.body.toString()) as { model: string; stream?: boolean; tools?: { function: { name: string } }[] });
    expect(sent.at(-1)).toMatchObject({ model: 'gpt-4o', stream: true });
    expect(sent.at(-1)!.tools!.length).toBeGreaterThan(3);
    rig.chatOnly.requests.length = 0;
    const routed = await allChat([]);
    expect(response(routed)).toBe('Hello from the chat upstream');
    const first = JSON.parse(rig.chatOnly.requests[0]!.body.toString()) as { response_format?: { type: string; json_schema: { schema: { type: string; properties: Record<string, { type: string }> } } } };
    expect(first.response_format?.type).toBe('json_schema');
    expect(first.response_format!.json_schema.schema.type).toBe('object');
    expect(first.response_format!.json_schema.schema.properties.complexity_score?.type).toBe('integer');
    expect(rig.proxy.count).toBe(0);
  });

  /** Run with the CLI pointed at a second gateway whose only upstream speaks chat, so every Gemini model it picks is translated. */
  async function allChat(args: string[]): Promise<Run> {
    const other = await startGateway({ upstream: rig.chatOnly, env: { AI_UPSTREAM_BASE_URL: '', AI_UPSTREAM_API_KEY: UPSTREAM_KEY, AI_UPSTREAMS: JSON.stringify([{ url: rig.chatOnly.url, api: ['openai'] }]) } });
    try {
      return await gemini(args, { base: other.base, key: (await makeKey(other.svc)).key });
    } finally {
      await other.close();
    }
  }

});
