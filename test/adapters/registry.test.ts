import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtinProgram, resolveAgent, slugify, type ResolvedAgent } from '../../src/adapters/registry.js';
import { adapterInfo, BUILTIN_ADAPTERS } from '../../src/adapters/builtins.js';
import { parseConfig } from '../../src/config/load.js';
import { DEFAULT_CONFIG, type Config } from '../../src/config/schema.js';
import { HUMAN_TIMEOUT_S } from '../../src/config/defaults.js';
import { usageErrorOf } from '../support/errors.js';

let root: string;
let cwd: string;
let confDir: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'bounce-registry-')));
  cwd = join(root, 'work');
  confDir = join(root, 'conf');
  mkdirSync(cwd);
  mkdirSync(confDir);
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const config = (yaml: string): Config => parseConfig(yaml, 'bounce.config.yaml');

function program(path: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, '#!/bin/sh\nexit 0\n');
  chmodSync(path, 0o755);
  return path;
}

describe('built-in adapters', () => {
  it('are claude, codex, gemini, opencode, openai, anthropic, a2a, mock and human', () => {
    expect(BUILTIN_ADAPTERS.map((a) => a.name)).toEqual(['claude', 'codex', 'gemini', 'opencode', 'openai', 'anthropic', 'a2a', 'mock', 'human']);
    expect(adapterInfo('openai')?.kind).toBe('http');
    expect(adapterInfo('nope')).toBeUndefined();
  });

  it("builtinProgram points at the built program in the agent's folder, dist/adapters/<name>/program.js", () => {
    const p = builtinProgram('claude');
    expect(basename(p)).toBe('program.js');
    expect(basename(dirname(p))).toBe('claude');
    expect(basename(dirname(dirname(p)))).toBe('adapters');
    expect(basename(dirname(dirname(dirname(p))))).toBe('dist');
  });
});

describe('resolveAgent: built-in names', () => {
  for (const info of BUILTIN_ADAPTERS) {
    it(`${info.name}: runs its program with node, no options`, () => {
      const a = resolveAgent(info.name, DEFAULT_CONFIG, cwd, null);
      expect(a).toEqual<ResolvedAgent>({
        spec: info.name,
        slug: info.name,
        adapter: info.name,
        provider: info.provider,
        command: process.execPath,
        args: [builtinProgram(info.name)],
        options: {},
        // A person's pass has a day by default; every other built-in takes the role's deadline.
        timeoutS: info.name === 'human' ? HUMAN_TIMEOUT_S : undefined,
        evidence: info.name === 'mock' ? 'mock' : 'live',
      });
    });
  }

  it('providers: claude anthropic, codex openai, openai openai-compatible, anthropic anthropic, mock mock', () => {
    const provider = (s: string): string => resolveAgent(s, DEFAULT_CONFIG, cwd, null).provider;
    expect(['claude', 'codex', 'gemini', 'opencode', 'openai', 'anthropic', 'mock'].map(provider)).toEqual([
      'anthropic',
      'openai',
      'google',
      'opencode',
      'openai-compatible',
      'anthropic',
      'mock',
    ]);
  });

  it('names are case-sensitive', () => {
    usageErrorOf(() => resolveAgent('Claude', DEFAULT_CONFIG, cwd, null));
  });
});

describe('resolveAgent: adapter:model', () => {
  it('splits at the first colon, so openai:llama3.1:8b keeps its tag', () => {
    const a = resolveAgent('openai:llama3.1:8b', DEFAULT_CONFIG, cwd, null);
    expect(a.adapter).toBe('openai');
    expect(a.options).toEqual({ model: 'llama3.1:8b' });
    expect(a.spec).toBe('openai:llama3.1:8b');
    expect(a.slug).toBe('openai-llama3.1-8b');
    expect(a.evidence).toBe('live');
  });

  it('claude:opus sets the model of the claude adapter', () => {
    const a = resolveAgent('claude:opus', DEFAULT_CONFIG, cwd, null);
    expect(a.adapter).toBe('claude');
    expect(a.options).toEqual({ model: 'opus' });
    expect(a.args).toEqual([builtinProgram('claude')]);
  });

  it('a model with a slash (OpenRouter style) is kept whole', () => {
    expect(resolveAgent('openai:meta-llama/llama-3.1-8b', DEFAULT_CONFIG, cwd, null).options).toEqual({ model: 'meta-llama/llama-3.1-8b' });
  });

  it('mock:script.yaml resolves the script against cwd (not the config folder) and is mock evidence', () => {
    const a = resolveAgent('mock:scripts/review.yaml', DEFAULT_CONFIG, cwd, confDir);
    expect(a.adapter).toBe('mock');
    expect(a.options).toEqual({ script: join(cwd, 'scripts', 'review.yaml') });
    expect(a.evidence).toBe('mock');
  });

  it('mock: an absolute script path is kept', () => {
    expect(resolveAgent('mock:/abs/s.yaml', DEFAULT_CONFIG, cwd, null).options.script).toBe('/abs/s.yaml');
  });

  it('an empty model (claude:) is an unknown agent', () => {
    const err = usageErrorOf(() => resolveAgent('claude:', DEFAULT_CONFIG, cwd, null));
    expect(err.message).toBe('unknown agent "claude:"');
  });

  it('an unknown adapter before the colon is an unknown agent', () => {
    expect(usageErrorOf(() => resolveAgent('llama:pro', DEFAULT_CONFIG, cwd, null)).message).toBe('unknown agent "llama:pro"');
  });
});

describe('resolveAgent: cmd:<program>', () => {
  it('a relative path is resolved against cwd and must exist', () => {
    const file = program(join(cwd, 'bin', 'agent.sh'));
    const a = resolveAgent('cmd:./bin/agent.sh', DEFAULT_CONFIG, cwd, confDir);
    expect(a).toEqual<ResolvedAgent>({
      spec: 'cmd:./bin/agent.sh',
      slug: 'agent.sh',
      adapter: 'cmd',
      provider: 'cmd',
      command: file,
      args: [],
      options: {},
      timeoutS: undefined,
      evidence: 'external',
    });
  });

  it('a path without ./ but with a slash is still a path', () => {
    const file = program(join(cwd, 'bin', 'agent.sh'));
    expect(resolveAgent('cmd:bin/agent.sh', DEFAULT_CONFIG, cwd, null).command).toBe(file);
  });

  it('an absolute path is kept', () => {
    const file = program(join(root, 'abs-agent'));
    expect(resolveAgent(`cmd:${file}`, DEFAULT_CONFIG, cwd, null).command).toBe(file);
  });

  it('a path that does not exist is a config error (exit 2) naming it', () => {
    program(join(confDir, 'x'));
    const err = usageErrorOf(() => resolveAgent('cmd:./x', DEFAULT_CONFIG, cwd, confDir));
    expect(err.message).toBe('adapter program not found: ./x');
    expect(err.code).toBe('config');
  });

  it('a bare name is kept bare, to be looked up on PATH, and is not checked here', () => {
    const a = resolveAgent('cmd:my-agent', DEFAULT_CONFIG, cwd, null);
    expect(a.command).toBe('my-agent');
    expect(a.slug).toBe('my-agent');
    expect(a.evidence).toBe('external');
  });

  it('cmd: with no program is an error', () => {
    const err = usageErrorOf(() => resolveAgent('cmd:', DEFAULT_CONFIG, cwd, null));
    expect(err.message).toContain('names no program');
  });
});

describe('resolveAgent: configured names', () => {
  it('a configured openai agent carries its options and timeout', () => {
    const c = config(
      'agents:\n  local:\n    adapter: openai\n    model: llama3.1:8b\n    base_url: http://127.0.0.1:11434/v1\n    max_output_tokens: 8192\n    timeout_s: 900\n',
    );
    const a = resolveAgent('local', c, cwd, confDir);
    expect(a).toEqual<ResolvedAgent>({
      spec: 'local',
      slug: 'local',
      adapter: 'openai',
      provider: 'openai-compatible',
      command: process.execPath,
      args: [builtinProgram('openai')],
      options: { model: 'llama3.1:8b', base_url: 'http://127.0.0.1:11434/v1', max_output_tokens: 8192 },
      timeoutS: 900,
      evidence: 'live',
    });
  });

  it('a configured name takes precedence over a built-in of the same name', () => {
    const c = config('agents:\n  claude:\n    adapter: openai\n    model: m\n');
    const a = resolveAgent('claude', c, cwd, null);
    expect(a.adapter).toBe('openai');
    expect(a.options).toEqual({ model: 'm' });
  });

  it('a configured mock script is resolved against the config folder', () => {
    const c = config('agents:\n  scripted:\n    adapter: mock\n    script: fixtures/review.yaml\n');
    const a = resolveAgent('scripted', c, cwd, confDir);
    expect(a.options.script).toBe(join(confDir, 'fixtures', 'review.yaml'));
    expect(a.evidence).toBe('mock');
  });

  it('a configured mock script falls back to cwd when there is no config folder', () => {
    const c = config('agents:\n  scripted:\n    adapter: mock\n    script: review.yaml\n');
    expect(resolveAgent('scripted', c, cwd, null).options.script).toBe(join(cwd, 'review.yaml'));
  });

  it('does not change the config it was given', () => {
    const c = config('agents:\n  scripted:\n    adapter: mock\n    script: review.yaml\n');
    resolveAgent('scripted', c, cwd, confDir);
    expect(c.agents.scripted).toEqual({ adapter: 'mock', script: 'review.yaml' });
  });

  it('adapter cmd:./x is resolved against the config folder, with its args and options', () => {
    const file = program(join(confDir, 'tools', 'agent.mjs'));
    const c = config('agents:\n  tool:\n    adapter: cmd:./tools/agent.mjs\n    args: [--fast]\n    model: m1\n    timeout_s: 30\n');
    const a = resolveAgent('tool', c, cwd, confDir);
    expect(a).toEqual<ResolvedAgent>({
      spec: 'tool',
      slug: 'tool',
      adapter: 'cmd',
      provider: 'cmd',
      command: file,
      args: ['--fast'],
      options: { args: ['--fast'], model: 'm1' },
      timeoutS: 30,
      evidence: 'external',
    });
  });

  it('adapter cmd:./x that exists only under cwd is not found when the config folder is elsewhere', () => {
    program(join(cwd, 'agent.sh'));
    const c = config('agents:\n  tool:\n    adapter: cmd:./agent.sh\n');
    expect(usageErrorOf(() => resolveAgent('tool', c, cwd, confDir)).message).toBe('adapter program not found: ./agent.sh');
  });

  it('adapter cmd:./x falls back to cwd when there is no config folder', () => {
    const file = program(join(cwd, 'agent.sh'));
    const c = config('agents:\n  tool:\n    adapter: cmd:./agent.sh\n');
    expect(resolveAgent('tool', c, cwd, null).command).toBe(file);
  });

  it('adapter cmd:<name> is kept bare for PATH lookup', () => {
    const c = config('agents:\n  tool:\n    adapter: cmd:python3\n    args: [agent.py]\n');
    const a = resolveAgent('tool', c, cwd, confDir);
    expect(a.command).toBe('python3');
    expect(a.args).toEqual(['agent.py']);
  });

  it('an unknown configured adapter names the entry and lists the known specs', () => {
    const c = config('agents:\n  odd:\n    adapter: llama\n');
    const err = usageErrorOf(() => resolveAgent('odd', c, cwd, null));
    expect(err.message).toBe('agents.odd.adapter: unknown adapter "llama"');
    expect(err.line).toContain('claude, codex, gemini, opencode, openai, anthropic, a2a, mock, human, odd');
  });

  const refused: [string, string, string][] = [
    ['codex', 'max_output_tokens: 100', 'max_output_tokens'],
    ['claude', 'base_url: http://127.0.0.1:1/v1', 'base_url'],
    ['openai', 'script: s.yaml', 'script'],
    ['mock', 'temperature: 0.5', 'temperature'],
    ['anthropic', 'args: [-v]', 'args'],
  ];
  for (const [adapter, line, option] of refused) {
    it(`${adapter} does not take ${option}: an error naming the entry, the option and what it takes`, () => {
      const c = config(`agents:\n  a1:\n    adapter: ${adapter}\n    ${line}\n`);
      const err = usageErrorOf(() => resolveAgent('a1', c, cwd, null));
      expect(err.message).toBe(`agents.a1: ${adapter} does not take ${option}`);
      expect(err.code).toBe('config');
      expect(err.hint).toBe(`remove them; ${adapter} takes ${adapterInfo(adapter)!.options.join(', ')}`);
    });
  }

  it('several options an adapter does not take are all named', () => {
    const c = config('agents:\n  a1:\n    adapter: codex\n    max_output_tokens: 100\n    temperature: 1\n');
    expect(usageErrorOf(() => resolveAgent('a1', c, cwd, null)).message).toBe('agents.a1: codex does not take max_output_tokens, temperature');
  });

  it('timeout_s is accepted by every adapter', () => {
    for (const adapter of ['claude', 'codex', 'openai', 'anthropic', 'mock']) {
      const c = config(`agents:\n  a1:\n    adapter: ${adapter}\n    timeout_s: 5\n`);
      expect(resolveAgent('a1', c, cwd, null).timeoutS).toBe(5);
    }
  });
});

describe('resolveAgent: unknown specs', () => {
  it('lists the built-in names, the configured names and the other forms', () => {
    const c = config('agents:\n  local:\n    adapter: openai\n  fast:\n    adapter: claude\n');
    const err = usageErrorOf(() => resolveAgent('gpt5', c, cwd, null));
    expect(err.message).toBe('unknown agent "gpt5"');
    expect(err.code).toBe('config');
    expect(err.hint).toBe('use one of: claude, codex, gemini, opencode, openai, anthropic, a2a, mock, human, local, fast, <adapter>:<model> or cmd:<program>');
  });

  it('without configured agents, lists the built-ins only', () => {
    expect(usageErrorOf(() => resolveAgent('x', DEFAULT_CONFIG, cwd, null)).hint).toBe(
      'use one of: claude, codex, gemini, opencode, openai, anthropic, a2a, mock, human, <adapter>:<model> or cmd:<program>',
    );
  });

  it('names Object.prototype carries (constructor, __proto__, toString) are unknown agents, configured or not', () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(usageErrorOf(() => resolveAgent(name, DEFAULT_CONFIG, cwd, null)).message).toBe(`unknown agent "${name}"`);
      expect(usageErrorOf(() => resolveAgent(`${name}:model`, DEFAULT_CONFIG, cwd, null)).message).toBe(`unknown agent "${name}:model"`);
    }
    // A configured agent may still be called so.
    const c = config('agents:\n  constructor:\n    adapter: mock\n');
    expect(resolveAgent('constructor', c, cwd, null)).toMatchObject({ spec: 'constructor', adapter: 'mock' });
    expect(usageErrorOf(() => resolveAgent('toString', c, cwd, null)).message).toBe('unknown agent "toString"');
  });

  it('a near miss gets a "did you mean" before the list', () => {
    expect(usageErrorOf(() => resolveAgent('cladue', DEFAULT_CONFIG, cwd, null)).hint).toMatch(/^did you mean claude\? use one of: claude, /);
    expect(usageErrorOf(() => resolveAgent('codx:gpt-5', DEFAULT_CONFIG, cwd, null)).hint).toMatch(/^did you mean codex\? /);
  });
});

describe('evidence', () => {
  it('mock is mock, cmd: is external, every other adapter is live', () => {
    program(join(cwd, 'a.sh'));
    const c = config('agents:\n  m:\n    adapter: mock\n  e:\n    adapter: cmd:prog\n  l:\n    adapter: anthropic\n');
    const ev = (s: string): string => resolveAgent(s, c, cwd, null).evidence;
    expect(ev('mock')).toBe('mock');
    expect(ev('mock:s.yaml')).toBe('mock');
    expect(ev('m')).toBe('mock');
    expect(ev('cmd:./a.sh')).toBe('external');
    expect(ev('cmd:prog')).toBe('external');
    expect(ev('e')).toBe('external');
    for (const s of ['claude', 'codex', 'openai', 'anthropic', 'claude:opus', 'openai:m', 'l']) expect(ev(s)).toBe('live');
  });
});

describe('slugify', () => {
  it('lower-cases and replaces runs of unsafe characters with one dash', () => {
    expect(slugify('openai:llama3.1:8b')).toBe('openai-llama3.1-8b');
    expect(slugify('Claude:Opus 4')).toBe('claude-opus-4');
    expect(slugify('my_agent.v2')).toBe('my_agent.v2');
  });

  it('drops cmd: and any folders, keeping the program name', () => {
    expect(slugify('cmd:./tools/My Agent.py')).toBe('my-agent.py');
    expect(slugify('cmd:my-agent')).toBe('my-agent');
    expect(slugify('cmd:C:\\tools\\agent.exe')).toBe('agent.exe');
  });

  it('trims leading and trailing dashes', () => {
    expect(slugify('--weird--')).toBe('weird');
    expect(slugify('@@x@@')).toBe('x');
  });

  it('caps the slug at 40 characters', () => {
    expect(slugify('a'.repeat(100))).toBe('a'.repeat(40));
  });

  it('falls back to "agent" when nothing usable is left', () => {
    expect(slugify('')).toBe('agent');
    expect(slugify('cmd:./dir/')).toBe('agent');
    expect(slugify('???')).toBe('agent');
  });

  it('is what resolveAgent puts in slug', () => {
    const c = config('agents:\n  Local.Fast:\n    adapter: openai\n');
    expect(resolveAgent('Local.Fast', c, cwd, null).slug).toBe('local.fast');
  });
});

describe('resolveAgent: a2a:<url>', () => {
  it('takes what follows the colon as the agent URL, colons and all', () => {
    const a = resolveAgent('a2a:http://127.0.0.1:41241/agents/review', DEFAULT_CONFIG, cwd, null);
    expect(a).toMatchObject({ adapter: 'a2a', provider: 'a2a', options: { base_url: 'http://127.0.0.1:41241/agents/review' }, evidence: 'live' });
  });

  it('refuses what is not an http(s) URL with one line naming the fix', () => {
    for (const bad of ['a2a:localhost', 'a2a:ftp://example.com/agent']) {
      const err = usageErrorOf(() => resolveAgent(bad, DEFAULT_CONFIG, cwd, null));
      expect(err.message).toBe(`agent "${bad}": ${bad.slice(4)} is not an http(s) URL`);
      expect(err.hint).toBe('write a2a:https://host/path (http:// only on loopback)');
    }
  });
});
