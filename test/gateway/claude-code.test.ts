/**
 * The real Claude Code CLI (`claude -p`, ANTHROPIC_BASE_URL = our root) through the gateway: to
 * an upstream that speaks Anthropic (native) and to one that speaks only chat completions
 * (translated, its own tools carried as functions, its thinking and output budget fitted to gpt-4o), with the key as ANTHROPIC_API_KEY
 * (x-api-key) and as ANTHROPIC_AUTH_TOKEN (Bearer). Offline: telemetry, error reporting and
 * updates are off (CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC), and a refusing HTTPS_PROXY with
 * NO_PROXY=127.0.0.1 shows that nothing else leaves the machine. The CLI is large (about 0.4 GB),
 * so it is not a project dependency: `.ci/run` installs the pinned version into
 * CLAUDE_CODE_CLI_DIR (default ~/.cache/apis-ci/claude-code); without it this test is skipped.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { chatTextStream, installedCli, runCli, useCliRig, type CliRun as Run } from './cli-support.ts';
import { AnthropicUpstream } from './vendor-upstreams.ts';

const { bin: CLAUDE, installed } = installedCli({ name: 'Claude Code', dirVar: 'CLAUDE_CODE_CLI_DIR', folder: 'claude-code', bin: 'claude', requireVar: 'REQUIRE_CLAUDE_CODE_CLI', testFile: 'claude-code.test.ts' });

const UPSTREAM_KEY = 'vendor-upstream-key';

describe.skipIf(!installed)('Claude Code through the gateway', () => {
  const rig = useCliRig({ vendor: () => new AnthropicUpstream(UPSTREAM_KEY), vendorRoute: { name: 'anthropic', api: ['anthropic'], models: ['claude-*'] }, upstreamKey: UPSTREAM_KEY, homePrefix: 'claude-code-home-' });

  beforeAll(() => {
    rig.chatOnly.script('POST', '/v1/chat/completions', (req, res) => {
      const body = JSON.parse(req.body.toString()) as { model: string; stream?: boolean };
      if (body.stream) return chatTextStream(res, body.model, 'Hello from the chat upstream', { words: true });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'chatcmpl-cc', object: 'chat.completion', created: 1735689600, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from the chat upstream' }, finish_reason: 'stop' }], usage: { prompt_tokens: 900, completion_tokens: 4, total_tokens: 904 } }));
    });
  });

  function claude(model: string, credential: Record<string, string>): Promise<Run> {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: rig.home,
      ANTHROPIC_BASE_URL: rig.gateway.base,
      ...credential,
      ANTHROPIC_MODEL: model,
      ANTHROPIC_SMALL_FAST_MODEL: model,
      ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_NON_ESSENTIAL_MODEL_CALLS: '1',
      ...rig.proxy.env(),
    };
    return runCli(CLAUDE, ['-p', 'Say hello.', '--output-format', 'json', '--max-turns', '2'], { cwd: rig.home, env, timeoutMs: 90_000 });
  }

  const result = (run: Run): { result?: string; is_error?: boolean } => {
    try {
      return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '') as { result?: string; is_error?: boolean };
    } catch {
      throw new Error(`claude printed no JSON result (exit ${run.code}): ${run.stdout.slice(0, 500)} ${run.stderr.slice(0, 1000)}`);
    }
  };

  it('native to an Anthropic upstream, the key as ANTHROPIC_API_KEY (x-api-key)', { timeout: 120_000 }, async () => {
    const run = await claude('claude-sonnet-4-6', { ANTHROPIC_API_KEY: rig.key });
    expect(result(run), run.stderr).toMatchObject({ is_error: false, result: 'Hello from claude-sonnet-4-6' });
    const sent = rig.vendor.requests.filter((r) => r.path === '/v1/messages');
    expect(sent.length).toBeGreaterThan(0);
    for (const r of sent) {
      expect(r.headers['x-api-key']).toBe(UPSTREAM_KEY);
      expect(r.query.get('beta')).toBe('true');
      expect(r.headers['anthropic-beta']).toContain('claude-code-20250219');
    }
    // What Claude Code sends besides the conversation (all of it carried natively).
    expect(Object.keys(JSON.parse(sent[0]!.body.toString()) as object)).toEqual(expect.arrayContaining(['system', 'tools', 'thinking', 'metadata']));
    expect(rig.proxy.count).toBe(0);
  });

  it('translated to a chat-completions upstream, the key as ANTHROPIC_AUTH_TOKEN (Bearer)', { timeout: 120_000 }, async () => {
    const run = await claude('gpt-4o', { ANTHROPIC_AUTH_TOKEN: rig.key });
    expect(result(run), run.stderr).toMatchObject({ is_error: false, result: 'Hello from the chat upstream' });
    const sent = rig.chatOnly.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => JSON.parse(r.body.toString()) as { model: string; max_tokens?: number; messages: { role: string }[]; tools?: { function: { name: string } }[] });
    expect(sent.length).toBeGreaterThan(0);
    const main = sent.find((b) => (b.tools?.length ?? 0) > 0);
    expect(main?.model).toBe('gpt-4o');
    expect(main?.messages[0]?.role).toBe('system');
    expect(main?.tools?.map((t) => t.function.name)).toContain('Bash');
    // Claude Code asks for thinking and 32,000 output tokens, which gpt-4o refuses: thinking is
    // left out and the budget brought down to gpt-4o's maximum output.
    expect(main).not.toHaveProperty('reasoning_effort');
    expect(main).toMatchObject({ max_tokens: 16_384 });
    expect(rig.proxy.count).toBe(0);
  });
});
