import { describe, expect, it } from 'vitest';
import {
  buildCodexArgs,
  codexModel,
  customProviderIds,
  isTurnCompletedLine,
  keyVariables,
  mcpServerIds,
  parseCodexOutput,
  topLevelSetting,
} from '../../../adapters/codex/program.js';

const paths = { workdir: '/tmp/bounce-codex-x/work', lastMessage: '/tmp/bounce-codex-x/last-message.txt' };
const FIXED = [
  'exec',
  '--json',
  '--color',
  'never',
  '--sandbox',
  'read-only',
  '--skip-git-repo-check',
  '--ephemeral',
  '-C',
  paths.workdir,
  '--output-last-message',
  paths.lastMessage,
  '-c',
  'features.unbounded_connection_retries=false',
  '-c',
  'features.shell_tool=false',
  '-c',
  'features.multi_agent=false',
  '-c',
  'features.goals=false',
  '-c',
  'web_search="disabled"',
];

describe('buildCodexArgs', () => {
  it('builds the bare command, prompt from stdin', () => {
    expect(buildCodexArgs({}, paths)).toEqual([...FIXED, '-']);
  });

  it('adds the model, then extra args, and ends with -', () => {
    expect(buildCodexArgs({ model: 'gpt-5.5', args: ['-c', 'model_reasoning_effort="low"'] }, paths)).toEqual([
      ...FIXED,
      '-m',
      'gpt-5.5',
      '-c',
      'model_reasoning_effort="low"',
      '-',
    ]);
  });

  it('turns off the retries of the providers config.toml defines', () => {
    expect(buildCodexArgs({}, paths, ['local', 'bounce-test'])).toEqual([
      ...FIXED,
      '-c',
      'model_providers.local.request_max_retries=0',
      '-c',
      'model_providers.local.stream_max_retries=0',
      '-c',
      'model_providers.bounce-test.request_max_retries=0',
      '-c',
      'model_providers.bounce-test.stream_max_retries=0',
      '-',
    ]);
  });

  it("disables each of the user's MCP servers", () => {
    expect(buildCodexArgs({}, paths, [], ['docs', 'browser'])).toEqual([
      ...FIXED,
      '-c',
      'mcp_servers.docs.enabled=false',
      '-c',
      'mcp_servers.browser.enabled=false',
      '-',
    ]);
    expect(mcpServerIds('[mcp_servers.docs]\ncommand = "x"\n[mcp_servers.docs.env]\nA = "1"\n[mcp_servers."browser"]\nurl = "u"\n')).toEqual([
      'docs',
      'browser',
    ]);
  });

  it('never passes --ignore-user-config or a key', () => {
    expect(buildCodexArgs({ model: 'm', max_output_tokens: 100 }, paths).join(' ')).not.toMatch(/ignore-user-config|KEY/);
  });
});

describe('config.toml reading', () => {
  const toml = [
    'model = "gpt-local"',
    'model_provider = "local"',
    '',
    '[model_providers.local]',
    'name = "Local"',
    'base_url = "http://127.0.0.1:8080/v1"',
    'env_key = "LOCAL_KEY"',
    '',
    "[model_providers.'quoted-id']",
    'name = "Q"',
    '',
    '[model_providers."bad.id"]',
    'name = "B"',
    '',
    '[model_providers.local.http_headers]',
    'x = "y"',
    '',
    '[profiles.fast]',
    'model = "other"',
  ].join('\n');

  it('finds the custom providers, usable as bare -c keys', () => {
    expect(customProviderIds(toml)).toEqual(['local', 'quoted-id']);
  });

  it('reads top-level settings only', () => {
    expect(topLevelSetting(toml, 'model')).toBe('gpt-local');
    expect(topLevelSetting(toml, 'model_provider')).toBe('local');
    expect(topLevelSetting('[profiles.x]\nmodel = "p"', 'model')).toBe(null);
  });

  it('names the key variables and the model', () => {
    expect(keyVariables(toml)).toEqual(['LOCAL_KEY']);
    expect(codexModel({ model: 'a' }, toml)).toBe('a');
    expect(codexModel({ args: ['-m', 'b'] }, toml)).toBe('b');
    expect(codexModel({}, toml)).toBe('gpt-local');
  });
});

// Shapes recorded from codex-cli 0.171.0 `exec --json`.
const jsonl = (...events: unknown[]): string => `${events.map((e) => JSON.stringify(e)).join('\n')}\n`;
const started = { type: 'thread.started', thread_id: '01a229b8-abc2-7d61-a409-16511d7b42a1' };
const metaWarning = {
  type: 'item.completed',
  item: {
    id: 'item_0',
    type: 'error',
    message: 'Model metadata for `test-model` not found. Defaulting to fallback metadata; this can degrade performance and cause issues.',
  },
};
const said = (text: string) => ({ type: 'item.completed', item: { id: 'item_1', type: 'agent_message', text } });
const done = {
  type: 'turn.completed',
  usage: { input_tokens: 299, cached_input_tokens: 40, cache_write_input_tokens: 0, output_tokens: 130, reasoning_output_tokens: 20 },
};
const failed = (message: string) => [
  { type: 'error', message },
  { type: 'turn.failed', error: { message } },
];
const meta = { model: 'test-model', agent_version: '0.171.0' };

describe('parseCodexOutput', () => {
  it('reads a success: the last-message file wins, usage from turn.completed, warnings ignored', () => {
    expect(parseCodexOutput(jsonl(started, metaWarning, { type: 'turn.started' }, said('Hello'), done), '', 0, 'Hello.\n', meta)).toEqual({
      ok: true,
      reply: 'Hello.\n',
      stop: 'complete',
      usage: { input_tokens: 299, output_tokens: 130, cache_read_tokens: 40, cache_write_tokens: null, cost_usd: null, provider_reported: true },
      ...meta,
    });
  });

  it('falls back to the last agent_message when the file is missing or empty', () => {
    const out = jsonl(started, said('one'), said('two'), done);
    expect(parseCodexOutput(out, '', 0, null)).toMatchObject({ ok: true, reply: 'two' });
    expect(parseCodexOutput(out, '', 0, '')).toMatchObject({ ok: true, reply: 'two' });
  });

  it('an empty turn is an empty reply (the runner decides)', () => {
    expect(parseCodexOutput(jsonl(started, done), 'Warning: no last agent message; wrote empty content to x\n', 0, '')).toMatchObject({
      ok: true,
      reply: '',
      stop: 'complete',
    });
  });

  it('reports response.incomplete (max_output_tokens) as truncated, keeping the partial text', () => {
    const out = jsonl(started, said('Half a doc'), ...failed('Incomplete response returned, reason: max_output_tokens'));
    expect(parseCodexOutput(out, '', 1, '')).toMatchObject({ ok: true, reply: 'Half a doc', stop: 'truncated', usage: { provider_reported: false } });
    const filtered = parseCodexOutput(jsonl(started, ...failed('Incomplete response returned, reason: content_filter')), '', 1, '');
    expect(filtered.ok ? null : filtered.error.type).toBe('provider');
  });

  it('types turn.failed and error events, even with exit 0', () => {
    const cases: Array<[string, string, number | undefined]> = [
      ['unexpected status 401 Unauthorized: invalid x-api-key, url: http://127.0.0.1:1/v1/responses', 'auth', 401],
      ['exceeded retry limit, last status: 429 Too Many Requests', 'rate_limit', 429],
      ['We’re currently experiencing high demand, which may cause temporary errors.', 'provider', 500],
      ['Selected model is at capacity. Please try a different model.', 'rate_limit', undefined],
      ['Connection failed: error sending request', 'network', undefined],
      // A 4xx other than auth and rate limits is a request to fix, as for the HTTP adapters: not retried.
      ['unexpected status 400 Bad Request: model not supported', 'config', 400],
      // Codex's words for insufficient_quota: no retry helps.
      ['Quota exceeded. Check your plan and billing details.', 'quota', undefined],
    ];
    for (const [message, type, status] of cases) {
      const r = parseCodexOutput(jsonl(started, { type: 'turn.started' }, ...failed(message)), '', 0, '', meta);
      expect(r.ok ? null : r.error, message).toEqual({ type, message, ...(status ? { status } : {}) });
    }
  });

  it('an error event without turn.failed still fails; Reconnecting notices are not the failure', () => {
    const out = jsonl(
      started,
      { type: 'error', message: 'Reconnecting... 1/5 (stream disconnected)' },
      { type: 'error', message: 'stream disconnected before completion: socket hang up' },
    );
    const r = parseCodexOutput(out, '', 1, null);
    expect(r.ok ? null : r.error).toMatchObject({ type: 'network', message: 'stream disconnected before completion: socket hang up' });
  });

  it('a failure with a warning-only stream uses the warnings and stderr', () => {
    const r = parseCodexOutput(jsonl(started, metaWarning), 'WARNING: proceeding, even though we could not create PATH aliases\n', 1, null);
    expect(r.ok ? null : r.error.message).toContain('Model metadata');
  });

  it('types config and argv errors printed on stderr', () => {
    const cfg = parseCodexOutput('', 'Error loading config.toml: model_providers.x: provider name must not be empty\n', 1, null);
    expect(cfg.ok ? null : cfg.error.type).toBe('config');
    const argv = parseCodexOutput('', "error: unexpected argument '--full-auto' found\n", 2, null);
    expect(argv.ok ? null : argv.error.type).toBe('config');
  });

  it('types plain-text stdout and silence', () => {
    const auth = parseCodexOutput('Not logged in\n', '', 1, null);
    expect(auth.ok ? null : auth.error.type).toBe('auth');
    const quiet = parseCodexOutput('', '', 0, null);
    expect(quiet.ok ? null : quiet.error).toEqual({ type: 'provider', message: 'codex exited with code 0 without finishing a turn' });
  });
});

describe('the end of a codex turn', () => {
  it('is the turn.completed event, and no other line, however it mentions one', () => {
    expect(isTurnCompletedLine('{"type":"turn.completed","usage":{"input_tokens":3,"output_tokens":2}}')).toBe(true);
    expect(isTurnCompletedLine('{"type":"item.completed","item":{"type":"agent_message","text":"a \\"turn.completed\\" event"}}')).toBe(false);
    expect(isTurnCompletedLine('{"type":"turn.completed"')).toBe(false);
    expect(isTurnCompletedLine('WARNING: turn.completed')).toBe(false);
  });

  it('leaves the reply to the events when the last-message file is not written yet', () => {
    const stdout = [
      '{"type":"item.completed","item":{"type":"agent_message","text":"# Plan\\n\\nDone."}}',
      '{"type":"turn.completed","usage":{"input_tokens":3,"output_tokens":2}}',
    ].join('\n');
    expect(parseCodexOutput(stdout, '', null, '')).toMatchObject({ ok: true, reply: '# Plan\n\nDone.', stop: 'complete' });
  });
});
