/**
 * The real Codex CLI (`codex exec`, a config.toml provider with `wire_api = "responses"` whose
 * `base_url` is our /v1) through the gateway: to an upstream that speaks Responses (native) and
 * to ones that speak only chat completions, only Anthropic Messages or only Gemini (translated;
 * built-in tools without an equivalent are left out). Offline: a refusing HTTPS_PROXY with NO_PROXY=127.0.0.1 shows that
 * nothing else leaves the machine. The CLI is large (about 0.4 GB), so it is not a project
 * dependency: `.ci/run` installs the pinned version into CODEX_CLI_DIR (default
 * ~/.cache/apis-ci/codex); without it this test is skipped.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatTextStream, installedCli, RefusingProxy, runCli, type CliRun } from './cli-support.ts';
import { makeKey, startGateway, type Harness } from './helpers.ts';
import { ModelUpstream } from './model-upstream.ts';
import { AnthropicUpstream, GeminiUpstream } from './vendor-upstreams.ts';

const { bin: CODEX, installed } = installedCli({ name: 'the Codex CLI', dirVar: 'CODEX_CLI_DIR', folder: 'codex', bin: 'codex', requireVar: 'REQUIRE_CODEX_CLI', testFile: 'codex-cli.test.ts' });

/** A Responses stream of one text answer, with the documented event sequence. */
function responsesTextStream(res: http.ServerResponse, model: string, text: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  let seq = 0;
  const send = (type: string, fields: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...fields })}\n\n`);
  const base = { id: 'resp_codex1', object: 'response', created_at: 1735689600, model, output: [] as unknown[], status: 'in_progress' };
  const item = { type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
  send('response.created', { response: base });
  send('response.in_progress', { response: base });
  send('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
  send('response.content_part.added', { item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
  send('response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta: text });
  send('response.output_text.done', { item_id: 'msg_1', output_index: 0, content_index: 0, text });
  send('response.content_part.done', { item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text, annotations: [] } });
  send('response.output_item.done', { output_index: 0, item });
  send('response.completed', { response: { ...base, status: 'completed', output: [item], usage: { input_tokens: 900, input_tokens_details: { cached_tokens: 0 }, output_tokens: 4, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 904 } } });
  res.end();
}

describe.skipIf(!installed)('Codex CLI through the gateway', () => {
  let native: ModelUpstream;
  let chatOnly: ModelUpstream;
  let anthropic: AnthropicUpstream;
  let gemini: GeminiUpstream;
  let refusingProxy: RefusingProxy;
  let h: Harness;
  let key: string;
  let home: string;

  beforeAll(async () => {
    native = await new ModelUpstream().start();
    chatOnly = await new ModelUpstream().start();
    anthropic = await new AnthropicUpstream('ant-key').start();
    gemini = await new GeminiUpstream('gem-key').start();
    native.script('POST', '/v1/responses', (req, res) => responsesTextStream(res, String(JSON.parse(req.body.toString()).model), 'PONG from native'));
    chatOnly.script('POST', '/v1/chat/completions', (req, res) => chatTextStream(res, String(JSON.parse(req.body.toString()).model), 'PONG from chat'));
    // Anything sent through it (telemetry, update checks) is refused and would show up as a failure.
    refusingProxy = await new RefusingProxy().start();
    h = await startGateway({
      upstream: native,
      env: {
        AI_UPSTREAM_BASE_URL: '',
        AI_UPSTREAMS: JSON.stringify([
          { name: 'native', url: native.url, models: ['gpt-native'] },
          { name: 'chat-only', url: chatOnly.url, api: ['openai'], models: ['gpt-chat'] },
          { name: 'anthropic', url: anthropic.url, key: 'ant-key', api: ['anthropic'], models: ['claude-*'] },
          { name: 'gemini', url: gemini.url, key: 'gem-key', api: ['gemini'], models: ['gemini-*'] },
        ]),
      },
    });
    key = (await makeKey(h.svc)).key;
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'codex-home-'));
    fs.writeFileSync(
      path.join(home, 'config.toml'),
      [
        'model_provider = "gateway"',
        'check_for_update_on_startup = false',
        '[analytics]',
        'enabled = false',
        '[model_providers.gateway]',
        'name = "Our gateway"',
        `base_url = "${h.base}/v1"`,
        'env_key = "GATEWAY_KEY"',
        'wire_api = "responses"',
        'request_max_retries = 0',
        'stream_max_retries = 0',
        '',
      ].join('\n'),
    );
  });

  afterAll(async () => {
    await h?.close();
    await native?.stop();
    await chatOnly?.stop();
    await anthropic?.stop();
    await gemini?.stop();
    await refusingProxy?.stop();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  const codex = (model: string): Promise<CliRun> =>
    runCli(CODEX, ['exec', '--skip-git-repo-check', '--ephemeral', '-s', 'read-only', '-m', model, 'Reply with the word PONG.'], {
      cwd: home,
      env: { PATH: process.env.PATH, HOME: home, CODEX_HOME: home, GATEWAY_KEY: key, ...refusingProxy.env(), RUST_LOG: 'error' },
      timeoutMs: 60_000,
    });

  it('answers through an upstream that speaks Responses (native)', async () => {
    const r = await codex('gpt-native');
    expect(r.stdout, r.stderr).toContain('PONG from native');
    const sent = JSON.parse(native.last('/v1/responses')!.body.toString());
    expect(sent.model).toBe('gpt-native');
    expect(sent.tools.map((t: { type: string }) => t.type)).toContain('web_search');
    expect(sent.stream).toBe(true);
  }, 90_000);

  it('answers through an upstream that speaks only chat completions (translated)', async () => {
    const r = await codex('gpt-chat');
    expect(r.stdout, r.stderr).toContain('PONG from chat');
    const sent = JSON.parse(chatOnly.last('/v1/chat/completions')!.body.toString());
    expect(sent.messages.some((m: { role: string }) => m.role === 'user')).toBe(true);
    expect(sent.stream).toBe(true);
    expect(chatOnly.requests.some((q) => q.path === '/v1/responses')).toBe(false);
    // Its shell tool arrives as a function, its sub-agent namespace as functions, its web search as chat's web_search_options.
    expect(sent.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(expect.arrayContaining(['exec_command', 'multi_agent_v1__spawn_agent']));
    expect(sent.web_search_options).toEqual({});
  }, 90_000);

  for (const [model, vendor] of [
    ['claude-sonnet-4-5', () => anthropic],
    ['gemini-2.5-flash', () => gemini],
  ] as const)
    it(`answers through an upstream that speaks only its vendor's style (${model}, translated)`, async () => {
      const r = await codex(model);
      expect(r.stdout, r.stderr).toContain(`Hello from ${model}`);
      expect(vendor().requests.some((q) => q.method === 'POST')).toBe(true);
    }, 90_000);

  it('runs a shell tool call through a chat-only upstream (translated both ways)', async () => {
    chatOnly.reset();
    chatOnly.script('POST', '/v1/chat/completions', (req, res) => {
      const body = JSON.parse(req.body.toString()) as { model: string; messages: { role: string; content: unknown; tool_call_id?: string }[] };
      const result = body.messages.find((m) => m.role === 'tool');
      if (result) return chatTextStream(res, body.model, `TOOL DONE ${JSON.stringify(result.content).includes('TOOLRAN') ? 'with output' : 'without output'}`);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: Record<string, unknown>, finish: string | null) => res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
      chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_shell', type: 'function', function: { name: 'exec_command', arguments: '' } }] }, null);
      chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify({ cmd: 'echo TOOLRAN' }) } }] }, null);
      chunk({}, 'tool_calls');
      res.end('data: [DONE]\n\n');
    });
    try {
      const r = await codex('gpt-chat');
      const calls = chatOnly.requests.filter((q) => q.path === '/v1/chat/completions').map((q) => JSON.parse(q.body.toString()) as { messages: { role: string; tool_call_id?: string; tool_calls?: { id: string; function: { name: string } }[] }[] });
      expect(calls.length, r.stderr).toBeGreaterThanOrEqual(2);
      const followUp = calls[1]!.messages;
      expect(followUp.some((m) => m.role === 'assistant' && m.tool_calls?.[0]?.id === 'call_shell' && m.tool_calls[0].function.name === 'exec_command')).toBe(true);
      expect(followUp.some((m) => m.role === 'tool' && m.tool_call_id === 'call_shell')).toBe(true);
      expect(r.stdout, r.stderr).toContain('TOOL DONE with output');
    } finally {
      chatOnly.reset();
      chatOnly.script('POST', '/v1/chat/completions', (req, res) => chatTextStream(res, String(JSON.parse(req.body.toString()).model), 'PONG from chat'));
    }
  }, 90_000);
});
