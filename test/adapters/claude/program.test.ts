import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildClaudeArgs,
  buildClaudeEnv,
  costIsMeaningful,
  DENIED_TOOLS,
  isResultLine,
  parseClaudeOutput,
  hasBareMode,
  useBareMode,
} from '../../../adapters/claude/program.js';

const FIXED = [
  '-p',
  '--output-format',
  'stream-json',
  '--verbose',
  '--no-session-persistence',
  '--max-turns',
  '1',
  '--strict-mcp-config',
  '--setting-sources',
  'user',
  '--settings',
  '{"disableAllHooks":true,"autoMemoryEnabled":false,"spinnerTipsEnabled":false}',
];
/** The tail of every command: the backstop deny list, then no tools at all. */
const TAIL = [`--disallowedTools=${DENIED_TOOLS.join(',')}`, '--tools='];

describe('buildClaudeArgs', () => {
  it('builds the bare command', () => {
    expect(buildClaudeArgs({})).toEqual([...FIXED, ...TAIL]);
    expect(DENIED_TOOLS).toEqual(expect.arrayContaining(['Bash', 'Read', 'Edit', 'Write', 'WebFetch', 'Agent']));
  });

  it('adds model and budget, then extra args, and keeps --tools= last', () => {
    expect(buildClaudeArgs({ model: 'sonnet', max_budget_usd: 0.5, args: ['--effort', 'low'] })).toEqual([
      ...FIXED,
      '--model',
      'sonnet',
      '--max-budget-usd',
      '0.5',
      '--effort',
      'low',
      ...TAIL,
    ]);
  });

  it('starts with --bare in minimal mode', () => {
    expect(buildClaudeArgs({ model: 'sonnet' }, true)).toEqual(['--bare', ...FIXED, '--model', 'sonnet', ...TAIL]);
  });

  it('never puts the output cap or a key in argv', () => {
    const args = buildClaudeArgs({ model: 'claude-opus-4-8', max_output_tokens: 9000 });
    expect(args).toEqual([...FIXED, '--model', 'claude-opus-4-8', ...TAIL]);
  });
});

describe('buildClaudeEnv', () => {
  it('drops a parent session, turns retries and side requests off and sets the output cap', () => {
    const env = buildClaudeEnv(
      { max_output_tokens: 12000 },
      { PATH: '/bin', CLAUDECODE: '1', CLAUDE_CODE_ENTRYPOINT: 'cli', CLAUDE_CODE_SESSION_ID: 'x', ANTHROPIC_API_KEY: 'k', CLAUDE_CODE_MAX_RETRIES: '7' },
    );
    expect(env).toEqual({
      PATH: '/bin',
      ANTHROPIC_API_KEY: 'k',
      CLAUDE_CODE_MAX_RETRIES: '0',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      CLAUDE_CODE_DISABLE_CLAUDE_MDS: '1',
      CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1',
      CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS: '1',
      CLAUDE_CODE_MAX_OUTPUT_TOKENS: '12000',
    });
  });

  it('prices only against Anthropic itself', () => {
    expect(costIsMeaningful({})).toBe(true);
    expect(costIsMeaningful({ ANTHROPIC_BASE_URL: 'https://api.anthropic.com' })).toBe(true);
    expect(costIsMeaningful({ ANTHROPIC_BASE_URL: 'http://127.0.0.1:8080' })).toBe(false);
  });
});

// Shapes recorded from claude 2.1.197 `-p --output-format stream-json --verbose`.
const init = { type: 'system', subtype: 'init', tools: [], model: 'claude-opus-4-8[1m]', claude_code_version: '2.1.197' };
const said = (id: string, text: string, model = 'claude-opus-4-8') => ({
  type: 'assistant',
  message: { id, model, role: 'assistant', content: [{ type: 'text', text }], stop_reason: null },
});
const result = (fields: Record<string, unknown>) => ({
  type: 'result',
  subtype: 'success',
  is_error: false,
  api_error_status: null,
  num_turns: 1,
  result: 'Hello',
  stop_reason: 'end_turn',
  total_cost_usd: 0.000399,
  usage: { input_tokens: 42, cache_creation_input_tokens: 2, cache_read_input_tokens: 3, output_tokens: 7 },
  modelUsage: { 'claude-opus-4-8[1m]': { inputTokens: 42, outputTokens: 7, costUSD: 0.000399 } },
  ...fields,
});
const jsonl = (...events: unknown[]): string => `${events.map((e) => JSON.stringify(e)).join('\n')}\n`;

describe('parseClaudeOutput', () => {
  it('reads a success: reply, usage with cache tokens, cost, model and version', () => {
    expect(parseClaudeOutput(jsonl(init, said('msg_1', 'Hello'), result({})), '', 0)).toEqual({
      ok: true,
      reply: 'Hello',
      stop: 'complete',
      // input_tokens counts the cached tokens too; the cache counts say how many of them.
      usage: { input_tokens: 47, output_tokens: 7, cache_read_tokens: 3, cache_write_tokens: 2, cost_usd: 0.000399, provider_reported: true },
      model: 'claude-opus-4-8[1m]',
      agent_version: '2.1.197',
    });
  });

  it('drops the cost estimate when told it is meaningless', () => {
    const r = parseClaudeOutput(jsonl(init, said('msg_1', 'Hello'), result({})), '', 0, { costKnown: false });
    expect(r.ok && r.usage.cost_usd).toBe(null);
  });

  it('reports stop_reason max_tokens as truncated', () => {
    const r = parseClaudeOutput(jsonl(init, said('msg_1', 'Half a doc'), result({ result: 'Half a doc', stop_reason: 'max_tokens' })), '', 0);
    expect(r).toMatchObject({ ok: true, reply: 'Half a doc', stop: 'truncated' });
  });

  it('reports a reply Claude Code continued after the output cap as truncated, all pieces kept', () => {
    const out = jsonl(init, said('msg_1', 'First half '), said('msg_2', 'OK.'), result({ result: 'OK.' }));
    expect(parseClaudeOutput(out, '', 0)).toMatchObject({ ok: true, reply: 'First half OK.', stop: 'truncated' });
  });

  it('reports the output-cap error after the continuations as truncated', () => {
    const cap =
      "API Error: Claude's response exceeded the 64000 output token maximum. To configure this behavior, set the CLAUDE_CODE_MAX_OUTPUT_TOKENS environment variable.";
    const out = jsonl(
      init,
      said('m1', 'a'),
      said('m2', 'b'),
      said('<synthetic-id>', cap, '<synthetic>'),
      result({ is_error: true, result: cap, stop_reason: 'stop_sequence' }),
    );
    expect(parseClaudeOutput(out, '', 1)).toMatchObject({ ok: true, reply: 'ab', stop: 'truncated' });
  });

  it('one message in several blocks (same id) is not a continuation', () => {
    const out = jsonl(init, said('msg_1', 'Hel'), said('msg_1', 'lo'), result({ result: 'Hello' }));
    expect(parseClaudeOutput(out, '', 0)).toMatchObject({ ok: true, reply: 'Hello', stop: 'complete' });
  });

  it('an empty result with exit 0 is an empty reply (the runner decides), or the text the model wrote', () => {
    expect(parseClaudeOutput(jsonl(init, result({ result: '', num_turns: 2 })), '', 0)).toMatchObject({ ok: true, reply: '', stop: 'complete' });
    expect(parseClaudeOutput(jsonl(init, said('msg_1', 'Hello'), result({ result: '' })), '', 0)).toMatchObject({ ok: true, reply: 'Hello' });
  });

  const errorResult = (text: string, status: number | null) =>
    jsonl(init, result({ is_error: true, result: text, api_error_status: status, stop_reason: 'stop_sequence', modelUsage: {} }));

  it('types is_error results by status, then by text', () => {
    const cases: Array<[string, number | null, string, number | undefined]> = [
      ['Invalid API key · Fix external API key', 401, 'auth', 401],
      ['Not logged in · Please run /login', null, 'auth', undefined],
      ['API Error: Request rejected (429) · slow down', 429, 'rate_limit', 429],
      ['API Error: 529 Overloaded', null, 'rate_limit', 529],
      ['API Error: 500 boom internal. This is a server-side issue, usually temporary', 500, 'provider', 500],
      ['API Error: Unable to connect to API (ConnectionRefused)', null, 'network', undefined],
      // A 4xx other than auth and rate limits is a request to fix, as for the HTTP adapters: not retried.
      ['API Error: 400 prompt is too long', 400, 'config', 400],
    ];
    for (const [text, status, type, code] of cases) {
      const r = parseClaudeOutput(errorResult(text, status), '', 1);
      expect(r.ok ? null : r.error, text).toMatchObject({ type, message: text, ...(code ? { status: code } : {}) });
      if (!r.ok) expect(r.agent_version).toBe('2.1.197');
    }
  });

  it('reads a retry delay named in the text', () => {
    const r = parseClaudeOutput(errorResult('Rate limit reached. Please try again in 7s.', 429), '', 1);
    expect(r.ok ? null : r.error).toMatchObject({ type: 'rate_limit', status: 429, retry_after_ms: 7000 });
  });

  it('types the error subtypes', () => {
    const turns = parseClaudeOutput(jsonl(init, result({ subtype: 'error_max_turns', is_error: true, result: undefined })), '', 1);
    expect(turns.ok ? null : turns.error.type).toBe('provider');
    const budget = parseClaudeOutput(jsonl(init, result({ subtype: 'error_max_budget_usd', is_error: true, result: undefined })), '', 1);
    expect(budget.ok ? null : budget.error).toMatchObject({ type: 'config', message: expect.stringContaining('max_budget_usd') });
    const during = parseClaudeOutput(jsonl(init, result({ subtype: 'error_during_execution', is_error: true, result: undefined })), '', 1);
    expect(during.ok ? null : during.error).toMatchObject({ type: 'provider', message: 'claude failed (error_during_execution)' });
  });

  it('types errors printed on stdout as plain text, and argv errors', () => {
    const auth = parseClaudeOutput('Invalid API key · Please run /login\n', '', 1);
    expect(auth.ok ? null : auth.error).toMatchObject({ type: 'auth', message: 'Invalid API key · Please run /login' });
    const net = parseClaudeOutput('', 'Error: fetch failed (ECONNREFUSED)\n', 1);
    expect(net.ok ? null : net.error.type).toBe('network');
    const argv = parseClaudeOutput('', "error: unknown option '--bogus'\n", 1);
    expect(argv.ok ? null : argv.error).toMatchObject({ type: 'config', message: expect.stringContaining('--bogus') });
  });

  it('types silence: exit 0 or a crash with nothing printed', () => {
    const quiet = parseClaudeOutput('', '', 0);
    expect(quiet.ok ? null : quiet.error).toEqual({ type: 'provider', message: 'claude printed no result' });
    const crash = parseClaudeOutput(jsonl(init), '', 137);
    expect(crash.ok ? null : crash.error).toEqual({ type: 'provider', message: 'claude exited with code 137 and printed no result' });
  });
});

describe('the end of a Claude Code answer', () => {
  it('is the result event, and no other line, however it mentions one', () => {
    expect(isResultLine('{"type":"result","subtype":"success","is_error":false,"result":"# Plan"}')).toBe(true);
    expect(isResultLine('{"type":"assistant","message":{"content":[{"type":"text","text":"\\"type\\":\\"result\\""}]}}')).toBe(false);
    expect(isResultLine('{"type":"result"')).toBe(false);
  });
});

describe('useBareMode', () => {
  const home = mkdtempSync(join(tmpdir(), 'bounce-claude-bare-'));
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  const config = (settings?: string): string => {
    const dir = mkdtempSync(join(home, 'c'));
    if (settings !== undefined) writeFileSync(join(dir, 'settings.json'), settings);
    return dir;
  };

  it('is on when ANTHROPIC_API_KEY is the credential for certain, a stored subscription login or not', () => {
    const dir = config('{"model":"opus","env":{"ANTHROPIC_BASE_URL":"http://127.0.0.1:9"}}');
    writeFileSync(join(dir, '.credentials.json'), '{"claudeAiOauth":{"accessToken":"at"}}');
    expect(useBareMode({}, { HOME: home, CLAUDE_CONFIG_DIR: dir, ANTHROPIC_API_KEY: 'sk-ant-1' }, '2.1.197')).toBe(true);
  });

  it.each([
    ['no key variable (a subscription login or a token)', {}, undefined],
    ['a long-lived token', { CLAUDE_CODE_OAUTH_TOKEN: 't' }, undefined],
    ['a bearer token beside the key', { ANTHROPIC_API_KEY: 'k', ANTHROPIC_AUTH_TOKEN: 't' }, undefined],
    ['a provider switch', { ANTHROPIC_API_KEY: 'k', CLAUDE_CODE_USE_VERTEX: '1' }, undefined],
    ['an apiKeyHelper in the user settings', { ANTHROPIC_API_KEY: 'k' }, '{"apiKeyHelper":"~/bin/key"}'],
  ] as const)('is off with %s', (_what, vars, settings) => {
    expect(useBareMode({}, { HOME: home, CLAUDE_CONFIG_DIR: config(settings), ...vars }, '2.1.197')).toBe(false);
  });

  it('is off when the extra args carry --bare already', () => {
    expect(useBareMode({ args: ['--bare'] }, { HOME: home, CLAUDE_CONFIG_DIR: config(), ANTHROPIC_API_KEY: 'k' }, '2.1.197')).toBe(false);
  });

  it('is off for a Claude Code older than 2.1.81, which has no --bare, or of unknown version', () => {
    const env = { HOME: home, CLAUDE_CONFIG_DIR: config(), ANTHROPIC_API_KEY: 'k' };
    expect(useBareMode({}, env, '2.1.80')).toBe(false);
    expect(useBareMode({}, env, null)).toBe(false);
    expect(useBareMode({}, env, '2.1.81 (Claude Code)')).toBe(true);
  });
});

describe('hasBareMode', () => {
  it.each([
    ['2.1.81', true],
    ['2.1.197 (Claude Code)', true],
    ['2.2.0', true],
    ['3.0.0', true],
    ['2.1.80', false],
    ['2.0.99', false],
    ['1.9.300', false],
    ['unknown', false],
    ['', false],
  ] as const)('%s: %s', (version, expected) => {
    expect(hasBareMode(version)).toBe(expected);
  });
});
