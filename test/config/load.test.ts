import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONFIG_FILE, findConfig, loadConfig, loadConfigKeys, parseConfig, runsDirFor, type LoadedConfig } from '../../src/config/load.js';
import { ConfigSchema, DEFAULT_CONFIG } from '../../src/config/schema.js';
import { configInUse } from '../../src/config/in-use.js';
import { usageErrorOf } from '../support/errors.js';

let root: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'bounce-config-')));
  // Bound every upward search at the temp root, whatever lies above it on this machine.
  mkdirSync(join(root, '.git'));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function write(path: string, text: string): string {
  writeFileSync(path, text);
  return path;
}

describe('findConfig', () => {
  it('finds bounce.config.yaml in the working directory', () => {
    const file = write(join(root, CONFIG_FILE), 'max_passes: 3\n');
    expect(findConfig(root, {})).toBe(file);
  });

  it('finds the nearest parent config, not a farther one', () => {
    const far = write(join(root, CONFIG_FILE), '');
    mkdirSync(join(root, 'a', 'b', 'c'), { recursive: true });
    const near = write(join(root, 'a', CONFIG_FILE), '');
    expect(findConfig(join(root, 'a', 'b', 'c'), {})).toBe(near);
    expect(findConfig(join(root, 'a', 'b', 'c'), {})).not.toBe(far);
  });

  it('prefers the working directory over a parent', () => {
    write(join(root, CONFIG_FILE), '');
    mkdirSync(join(root, 'sub'));
    const own = write(join(root, 'sub', CONFIG_FILE), '');
    expect(findConfig(join(root, 'sub'), {})).toBe(own);
  });

  it('stops at a folder containing .git: a config above the repository is not used', () => {
    write(join(root, CONFIG_FILE), 'max_passes: 3\n');
    mkdirSync(join(root, 'repo', '.git'), { recursive: true });
    mkdirSync(join(root, 'repo', 'docs'));
    expect(findConfig(join(root, 'repo', 'docs'), {})).toBeNull();
    expect(findConfig(join(root, 'repo'), {})).toBeNull();
  });

  it('still reads the config that sits in the repository root itself', () => {
    mkdirSync(join(root, 'repo', '.git'), { recursive: true });
    mkdirSync(join(root, 'repo', 'docs'));
    const file = write(join(root, 'repo', CONFIG_FILE), '');
    expect(findConfig(join(root, 'repo', 'docs'), {})).toBe(file);
  });

  it('treats a .git file (a worktree or submodule) as a repository root too', () => {
    write(join(root, CONFIG_FILE), '');
    mkdirSync(join(root, 'wt'));
    write(join(root, 'wt', '.git'), 'gitdir: /elsewhere\n');
    expect(findConfig(join(root, 'wt'), {})).toBeNull();
  });

  it('returns null when there is no config up to the repository root', () => {
    mkdirSync(join(root, 'x', 'y'), { recursive: true });
    expect(findConfig(join(root, 'x', 'y'), {})).toBeNull();
  });

  it('uses an explicit --config path, relative to cwd, over any file found by search', () => {
    write(join(root, CONFIG_FILE), '');
    mkdirSync(join(root, 'conf'));
    const named = write(join(root, 'conf', 'other.yaml'), '');
    expect(findConfig(root, {}, 'conf/other.yaml')).toBe(named);
    expect(findConfig(root, {}, named)).toBe(named);
  });

  it('uses BOUNCE_CONFIG (relative to cwd) when no --config is given', () => {
    write(join(root, CONFIG_FILE), '');
    const named = write(join(root, 'env.yaml'), '');
    expect(findConfig(root, { BOUNCE_CONFIG: 'env.yaml' })).toBe(named);
  });

  it('prefers --config over BOUNCE_CONFIG', () => {
    const flag = write(join(root, 'flag.yaml'), '');
    write(join(root, 'env.yaml'), '');
    expect(findConfig(root, { BOUNCE_CONFIG: 'env.yaml' }, 'flag.yaml')).toBe(flag);
  });

  it('ignores an empty BOUNCE_CONFIG and searches as usual', () => {
    const file = write(join(root, CONFIG_FILE), '');
    expect(findConfig(root, { BOUNCE_CONFIG: '' })).toBe(file);
  });

  it('an explicit path that does not exist is a usage error (exit 2) naming it', () => {
    write(join(root, CONFIG_FILE), '');
    const err = usageErrorOf(() => findConfig(root, {}, 'missing.yaml'));
    expect(err.message).toContain('missing.yaml');
    expect(err.code).toBe('config');
  });

  it('a BOUNCE_CONFIG that does not exist is a usage error, not a silent fallback', () => {
    write(join(root, CONFIG_FILE), '');
    const err = usageErrorOf(() => findConfig(root, { BOUNCE_CONFIG: 'nope.yaml' }));
    expect(err.message).toContain('nope.yaml');
  });
});

describe('the config file hints name (configInUse)', () => {
  it('--config and BOUNCE_CONFIG as given, a found file relative to the working folder (absolute above it), else bounce.config.yaml', () => {
    mkdirSync(join(root, 'conf'));
    mkdirSync(join(root, 'sub'));
    writeFileSync(join(root, 'conf', 'team.yaml'), 'max_passes: 3\n');
    findConfig(root, {}, 'conf/team.yaml');
    expect(configInUse()).toBe('conf/team.yaml');
    findConfig(root, { BOUNCE_CONFIG: join(root, 'conf', 'team.yaml') });
    expect(configInUse()).toBe(join(root, 'conf', 'team.yaml'));
    findConfig(root, {});
    expect(configInUse()).toBe(CONFIG_FILE);
    writeFileSync(join(root, CONFIG_FILE), 'max_passes: 3\n');
    findConfig(root, {});
    expect(configInUse()).toBe(CONFIG_FILE);
    findConfig(join(root, 'sub'), {});
    expect(configInUse()).toBe(join(root, CONFIG_FILE));
  });
});

describe('loadConfig', () => {
  it('returns the defaults and a null path when no file is found', () => {
    const loaded = loadConfig(root, {});
    expect(loaded.path).toBeNull();
    expect(loaded.config).toEqual(DEFAULT_CONFIG);
  });

  it('reads and validates the file found', () => {
    const file = write(join(root, CONFIG_FILE), 'max_passes: 4\nmarkers: [RISK]\n');
    const loaded = loadConfig(root, {});
    expect(loaded.path).toBe(file);
    expect(loaded.config.max_passes).toBe(4);
    expect(loaded.config.markers).toEqual(['RISK']);
  });

  it('a --config that names a directory is a usage error', () => {
    mkdirSync(join(root, 'dir.yaml'));
    const err = usageErrorOf(() => loadConfig(root, {}, 'dir.yaml'));
    expect(err.message).toContain('directory');
  });

  it('reports problems with the absolute file path as the label', () => {
    const file = write(join(root, CONFIG_FILE), 'max_passes: 0\n');
    const err = usageErrorOf(() => loadConfig(root, {}));
    expect(err.message.startsWith(`${file}: max_passes: `)).toBe(true);
  });
});

describe('parseConfig', () => {
  it('an empty file gives the defaults', () => {
    expect(parseConfig('', 'c.yaml')).toEqual(DEFAULT_CONFIG);
    expect(parseConfig('\n\n', 'c.yaml')).toEqual(DEFAULT_CONFIG);
    expect(parseConfig('# nothing but a comment\n', 'c.yaml')).toEqual(DEFAULT_CONFIG);
  });

  it('the defaults are 10 passes, 2 000 000 bytes, no extra markers, no agents, summary under 30% of over 50 words, edit format auto, dismissals allowed, no verify policy', () => {
    expect(DEFAULT_CONFIG).toEqual({
      agents: {},
      max_passes: 10,
      max_bytes: 2_000_000,
      markers: [],
      summary_ratio: 0.3,
      summary_min_words: 50,
      edit_format: 'auto',
      context_max_bytes: 262_144,
      budget: {},
      prices: {},
      lint: 'off',
      dismissals: 'allow',
      min_precision: 0.85,
      require_cross_family: false,
      verify: { require_cross_family: false, forbid_dismissed_contested: false },
    });
  });

  it('reads every documented key', () => {
    const config = parseConfig(
      [
        'reviewer: claude',
        'composer: local',
        'agents:',
        '  local:',
        '    adapter: openai',
        '    model: llama3.1:8b',
        '    base_url: http://127.0.0.1:11434/v1',
        '    api_key_env: MY_KEY',
        '    max_output_tokens: 8192',
        '    timeout_s: 900',
        '  tool:',
        '    adapter: cmd:./agent.py',
        '    args: [--fast, -v]',
        'runs_dir: out/runs',
        'max_passes: 6',
        'max_bytes: 1000',
        'markers: [RISK, todo_item, Open-Question]',
        'summary_ratio: 0.25',
        'summary_min_words: 80',
        'edit_format: edits',
        'goal: A runbook the on-call team can follow at 3 am.',
        'context: [src/, "specs/*.md"]',
        'context_max_bytes: 100000',
        'budget:',
        '  max_cost_usd: 2.5',
        '  max_tokens: 400000',
        '  max_dispatches: 12',
        '  batch: { max_cost_usd: 40 }',
        'prices:',
        '  local/llama3.1:8b: { input: 0, output: 0 }',
        '  openai/gpt-5: { input: 1, output: 8, cache_read: 0.1, cache_write: 1 }',
        'lint: repair',
        'dismissals: repair',
        'min_precision: 0.9',
        'require_cross_family: true',
        'verify: { require_cross_family: true, forbid_dismissed_contested: true }',
        '',
      ].join('\n'),
      'c.yaml',
    );
    expect(config).toEqual({
      reviewer: 'claude',
      composer: 'local',
      agents: {
        local: {
          adapter: 'openai',
          model: 'llama3.1:8b',
          base_url: 'http://127.0.0.1:11434/v1',
          api_key_env: 'MY_KEY',
          max_output_tokens: 8192,
          timeout_s: 900,
        },
        tool: { adapter: 'cmd:./agent.py', args: ['--fast', '-v'] },
      },
      runs_dir: 'out/runs',
      max_passes: 6,
      max_bytes: 1000,
      markers: ['RISK', 'todo_item', 'Open-Question'],
      summary_ratio: 0.25,
      summary_min_words: 80,
      edit_format: 'edits',
      goal: 'A runbook the on-call team can follow at 3 am.',
      context: ['src/', 'specs/*.md'],
      context_max_bytes: 100_000,
      budget: { max_cost_usd: 2.5, max_tokens: 400_000, max_dispatches: 12, batch: { max_cost_usd: 40 } },
      prices: { 'local/llama3.1:8b': { input: 0, output: 0 }, 'openai/gpt-5': { input: 1, output: 8, cache_read: 0.1, cache_write: 1 } },
      lint: 'repair',
      dismissals: 'repair',
      min_precision: 0.9,
      require_cross_family: true,
      verify: { require_cross_family: true, forbid_dismissed_contested: true },
    });
  });

  describe('invalid YAML', () => {
    const cases: [string, string][] = [
      ['an unclosed flow sequence', 'markers: [RISK\n'],
      ['an unclosed quote', 'reviewer: "claude\n'],
      ['a nested compact mapping', 'a: b: c\n'],
      ['tab indentation', 'agents:\n\tx: 1\n'],
      ['a duplicate key', 'max_passes: 1\nmax_passes: 2\n'],
    ];
    for (const [what, text] of cases) {
      it(`${what}: one line naming the file, with no trailing colon`, () => {
        const err = usageErrorOf(() => parseConfig(text, '/proj/bounce.config.yaml'));
        expect(err.code).toBe('config');
        expect(err.message.startsWith('/proj/bounce.config.yaml: invalid YAML: ')).toBe(true);
        expect(err.message).not.toContain('\n');
        expect(err.line).not.toContain('\n');
        expect(err.message).not.toMatch(/:\s*$/);
        expect(err.line).not.toContain('::');
        // The detail says where: line and column.
        expect(err.message).toMatch(/line \d+, column \d+$/);
      });
    }
  });

  it('a YAML scalar or list at the top level is rejected as not an object', () => {
    expect(usageErrorOf(() => parseConfig('just words\n', 'c.yaml')).message).toBe('c.yaml: (top level): must be a mapping of keys, not a string');
    expect(usageErrorOf(() => parseConfig('- a\n- b\n', 'c.yaml')).message).toBe('c.yaml: (top level): must be a mapping of keys, not an array');
  });

  it('an unknown top-level key is named, with the key it is closest to', () => {
    const err = usageErrorOf(() => parseConfig('reviewer: claude\nmax_pases: 3\n', 'c.yaml'));
    expect(err.message).toBe('c.yaml: max_pases: unknown key (did you mean max_passes?)');
    expect(err.code).toBe('config');
    expect(usageErrorOf(() => parseConfig('passes: 3\nfoo: 1\n', 'c.yaml')).message).toBe('c.yaml: passes: unknown key; foo: unknown key');
  });

  it('an unknown agent key is named with its path, with the key it is closest to', () => {
    expect(usageErrorOf(() => parseConfig('agents:\n  a:\n    adapter: openai\n    modle: x\n    timout_s: 5\n', 'c')).message).toBe(
      'c: agents.a.modle: unknown key (did you mean model?); agents.a.timout_s: unknown key (did you mean timeout_s?)',
    );
  });

  it('lists every problem as `label: path: message`, separated by semicolons', () => {
    const err = usageErrorOf(() => parseConfig('max_passes: ten\nmax_bytes: -5\nmarkers: RISK\nfoo: 1\n', 'c.yaml'));
    expect(err.message.startsWith('c.yaml: ')).toBe(true);
    const problems = err.message.slice('c.yaml: '.length).split('; ');
    expect(problems).toHaveLength(4);
    expect(problems).toContain('max_passes: must be a number, not a string');
    expect(problems).toContain('max_bytes: must be greater than 0');
    expect(problems).toContain('markers: must be an array, not a string');
    expect(problems).toContain('foo: unknown key');
    expect(err.line).not.toContain('\n');
    // zod's own wording never reaches the user.
    expect(err.line).not.toMatch(/Expected|received|Unrecognized|Required|Invalid/);
  });

  it('max_passes must be a whole number from 1 to 100', () => {
    expect(parseConfig('max_passes: 1\n', 'c').max_passes).toBe(1);
    expect(parseConfig('max_passes: 100\n', 'c').max_passes).toBe(100);
    for (const bad of ['0', '101', '2.5', '-1']) {
      expect(usageErrorOf(() => parseConfig(`max_passes: ${bad}\n`, 'c')).message).toMatch(/^c: max_passes: /);
    }
  });

  it('empty strings are refused for reviewer, composer and runs_dir', () => {
    const err = usageErrorOf(() => parseConfig('reviewer: ""\ncomposer: ""\nruns_dir: ""\n', 'c'));
    expect(err.message).toContain('reviewer: ');
    expect(err.message).toContain('composer: ');
    expect(err.message).toContain('runs_dir: ');
  });

  it('agent entries: unknown keys and wrong types are named with their full path', () => {
    const err = usageErrorOf(() =>
      parseConfig('agents:\n  fast:\n    adapter: openai\n    modle: x\n    timeout_s: -1\n    max_output_tokens: 1.5\n    api_key_env: sk-123\n', 'c.yaml'),
    );
    const problems = err.message.slice('c.yaml: '.length).split('; ');
    expect(problems).toContain('agents.fast.modle: unknown key (did you mean model?)');
    expect(problems).toContain('agents.fast.timeout_s: must be a number of seconds from 1 to 2147483');
    expect(problems).toContain('agents.fast.max_output_tokens: must be a whole number');
    expect(problems).toContain('agents.fast.api_key_env: must be an environment variable name');
    expect(problems).toHaveLength(4);
  });

  it('an agent entry needs an adapter', () => {
    expect(usageErrorOf(() => parseConfig('agents:\n  a:\n    model: x\n', 'c')).message).toBe('c: agents.a.adapter: is required');
  });

  it('base_url must be a URL', () => {
    expect(usageErrorOf(() => parseConfig('agents:\n  a:\n    adapter: openai\n    base_url: localhost\n', 'c')).message).toBe(
      'c: agents.a.base_url: must be a URL such as http://127.0.0.1:11434/v1',
    );
  });

  it('agent names: letters, digits, ".", "_" and "-", starting with a letter or digit', () => {
    const ok = parseConfig('agents:\n  local-1.b_2:\n    adapter: openai\n  9x:\n    adapter: mock\n', 'c');
    expect(Object.keys(ok.agents).sort()).toEqual(['9x', 'local-1.b_2']);
    for (const bad of ['"my agent"', '"-lead"', '"a:b"', '"a/b"', '".hidden"']) {
      const err = usageErrorOf(() => parseConfig(`agents:\n  ${bad}:\n    adapter: openai\n`, 'c'));
      expect(err.message).toContain('agent names use letters, digits');
      expect(err.message.startsWith(`c: agents.${JSON.parse(bad) as string}: `)).toBe(true);
    }
  });

  it('markers: words of letters, digits, _ or -, starting with a letter, at most 32 characters', () => {
    const longest = `R${'X'.repeat(31)}`;
    expect(parseConfig(`markers: [RISK, risk2, A_B, A-B, ${longest}]\n`, 'c').markers).toEqual(['RISK', 'risk2', 'A_B', 'A-B', longest]);
    const err = usageErrorOf(() => parseConfig(`markers: [RISK, "two words", 1X, "[RISK]", "", "\\e[31mRED", ${longest}X]\n`, 'c'));
    const problems = err.message.slice('c: '.length).split('; ');
    expect(problems).toEqual(
      [1, 2, 3, 4, 5, 6].map((i) => `markers.${i}: a marker is a word such as RISK: a letter, then letters, digits, _ or -, at most 32 characters`),
    );
  });

  it('timeout_s is a number of seconds a timer can hold: 1 to 2147483', () => {
    const at = (v: string): number | undefined => parseConfig(`agents:\n  a:\n    adapter: mock\n    timeout_s: ${v}\n`, 'c').agents.a?.timeout_s;
    expect(at('1')).toBe(1);
    expect(at('2147483')).toBe(2147483);
    expect(at('90.5')).toBe(90.5);
    for (const bad of ['0', '0.0001', '2147484', '1e300', '-5', '.inf']) {
      expect(usageErrorOf(() => at(bad)).message, bad).toBe('c: agents.a.timeout_s: must be a number of seconds from 1 to 2147483');
    }
  });

  it('markers must be strings', () => {
    expect(usageErrorOf(() => parseConfig('markers: [1]\n', 'c')).message).toBe('c: markers.0: must be a string, not a number');
  });

  it('the schema is strict about agent keys as well as top-level keys', () => {
    expect(ConfigSchema.safeParse({ agents: { a: { adapter: 'openai', key: 'sk' } } }).success).toBe(false);
    expect(ConfigSchema.safeParse({ agents: { a: { adapter: 'openai' } } }).success).toBe(true);
  });
});

describe('loadConfigKeys', () => {
  const BROKEN_AGENT = 'runs_dir: kept\nmarkers: [RISK]\nagents:\n  x:\n    adapter: openai\n    modle: 1\nsurprise: 1\n';

  it('validates only the keys asked for: a broken agents entry or an unknown key elsewhere does not matter', () => {
    writeFileSync(join(root, CONFIG_FILE), BROKEN_AGENT);
    expect(loadConfigKeys(root, {}, undefined, ['markers']).config).toEqual({ markers: ['RISK'] });
    expect(loadConfigKeys(root, {}, undefined, ['runs_dir'])).toEqual({ config: { runs_dir: 'kept' }, path: join(root, CONFIG_FILE) });
    expect(usageErrorOf(() => loadConfig(root, {})).message).toContain('agents.x.modle: unknown key');
  });

  it('a problem in a key asked for is still reported, and defaults fill what is absent', () => {
    writeFileSync(join(root, CONFIG_FILE), 'markers: ["two words"]\n');
    expect(usageErrorOf(() => loadConfigKeys(root, {}, undefined, ['markers'])).message).toMatch(/markers\.0: a marker is a word/);
    writeFileSync(join(root, CONFIG_FILE), 'reviewer: claude\n');
    expect(loadConfigKeys(root, {}, undefined, ['markers', 'runs_dir']).config).toEqual({ markers: [] });
    writeFileSync(join(root, CONFIG_FILE), '');
    expect(loadConfigKeys(root, {}, undefined, ['markers']).config.markers).toEqual([]);
  });
});

describe('runsDirFor', () => {
  const loaded = (config: string, path: string | null): LoadedConfig => ({ config: parseConfig(config, 'c'), path });

  it('the flag is relative to cwd, and wins over runs_dir', () => {
    const l = loaded('runs_dir: from-config\n', join(root, 'conf', CONFIG_FILE));
    expect(runsDirFor(join(root, 'work'), l, 'out')).toBe(join(root, 'work', 'out'));
    expect(runsDirFor(join(root, 'work'), l, '../elsewhere')).toBe(join(root, 'elsewhere'));
    expect(runsDirFor(join(root, 'work'), l, '/abs/runs')).toBe('/abs/runs');
  });

  it('runs_dir is relative to the folder of the config file, not to cwd', () => {
    const l = loaded('runs_dir: store/runs\n', join(root, 'proj', CONFIG_FILE));
    expect(runsDirFor(join(root, 'proj', 'docs', 'deep'), l)).toBe(join(root, 'proj', 'store', 'runs'));
  });

  it('an absolute runs_dir is used as is', () => {
    const l = loaded('runs_dir: /var/bounce\n', join(root, 'proj', CONFIG_FILE));
    expect(runsDirFor(join(root, 'other'), l)).toBe('/var/bounce');
  });

  it('defaults to ./runs under cwd, even when a config file without runs_dir was found above', () => {
    expect(runsDirFor(join(root, 'w'), { config: DEFAULT_CONFIG, path: null })).toBe(join(root, 'w', 'runs'));
    expect(runsDirFor(join(root, 'proj', 'sub'), loaded('max_passes: 3\n', join(root, 'proj', CONFIG_FILE)))).toBe(join(root, 'proj', 'sub', 'runs'));
  });

  it('an empty flag falls back to the config', () => {
    const l = loaded('runs_dir: r\n', join(root, 'p', CONFIG_FILE));
    expect(runsDirFor(join(root, 'x'), l, '')).toBe(join(root, 'p', 'r'));
  });
});
