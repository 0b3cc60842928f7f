import { describe, expect, it } from 'vitest';
import { crossFamilyCheck, modelFamily } from '../../src/adapters/family.js';
import { BUILTIN_ADAPTERS } from '../../src/adapters/builtins.js';

describe('modelFamily', () => {
  it('reads the family from the model name, else the provider, else the adapter', () => {
    expect(modelFamily({ adapter: 'claude', provider: 'anthropic', model: null })).toBe('anthropic');
    expect(modelFamily({ adapter: 'openai', provider: 'openai-compatible', model: 'gpt-4o-mini' })).toBe('openai');
    expect(modelFamily({ adapter: 'openai', provider: 'openai-compatible', model: 'llama3.1:8b' })).toBe('meta');
    expect(modelFamily({ adapter: 'opencode', provider: 'opencode', model: 'anthropic/claude-sonnet-4' })).toBe('anthropic');
    expect(modelFamily({ adapter: 'opencode', provider: 'opencode', model: 'openrouter/qwen/qwen3-coder' })).toBe('qwen');
    expect(modelFamily({ adapter: 'codex', provider: 'openai', model: 'o4-mini' })).toBe('openai');
    expect(modelFamily({ adapter: 'gemini', provider: 'google', model: null })).toBe('google');
    expect(modelFamily({ adapter: 'openai', provider: 'openai-compatible', model: null })).toBeNull();
    expect(modelFamily({ adapter: 'cmd', provider: 'cmd', model: null })).toBeNull();
  });

  it('is a fact in every built-in adapter row, null where the model name decides (openai, opencode, a remote a2a agent) or a person plays', () => {
    const families = Object.fromEntries(BUILTIN_ADAPTERS.map((a) => [a.name, a.family]));
    expect(families).toEqual({
      anthropic: 'anthropic',
      claude: 'anthropic',
      codex: 'openai',
      gemini: 'google',
      mock: 'mock',
      openai: null,
      opencode: null,
      human: null,
      a2a: null,
    });
  });

  it('gives a person no family, whatever their name looks like', () => {
    expect(modelFamily({ adapter: 'human', provider: 'human', model: 'Metallica Llama' })).toBeNull();
  });
});

describe('crossFamilyCheck', () => {
  const agent = (spec: string, adapter: string, provider: string, model: string | null) => ({ spec, adapter, provider, options: model ? { model } : {} });
  const claude = agent('claude', 'claude', 'anthropic', null);
  const anthropic = agent('anthropic:claude-sonnet-4-5', 'anthropic', 'anthropic', 'claude-sonnet-4-5');
  const codex = agent('codex', 'codex', 'openai', null);
  const script = agent('cmd:./review.sh', 'cmd', 'cmd', null);
  const person = agent('human', 'human', 'human', null);

  it('exempts a pair with a person on either side, even under require_cross_family', () => {
    expect(crossFamilyCheck({ reviewer: person, composer: claude }, true)).toEqual({});
    expect(crossFamilyCheck({ reviewer: codex, composer: person }, true)).toEqual({});
  });

  it('warns when the reviewer and the composer are of one family, and says nothing otherwise', () => {
    expect(crossFamilyCheck({ reviewer: claude, composer: anthropic }, false)).toEqual({
      warning: expect.stringMatching(/^the reviewer claude and the composer anthropic:claude-sonnet-4-5 are both of the anthropic model family/),
    });
    expect(crossFamilyCheck({ reviewer: claude, composer: codex }, false)).toEqual({});
    expect(crossFamilyCheck({ reviewer: script, composer: script }, false)).toEqual({});
  });

  it('with require_cross_family, refuses one family and an agent whose family is unknown, naming the fix', () => {
    expect(crossFamilyCheck({ reviewer: claude, composer: anthropic }, true).refusal).toMatch(/require_cross_family/);
    expect(crossFamilyCheck({ reviewer: claude, composer: script }, true).refusal).toMatch(/cannot tell the model family of the composer cmd:\.\/review\.sh/);
    expect(crossFamilyCheck({ reviewer: claude, composer: codex }, true)).toEqual({});
  });

  it('leaves the mock agents alone: they are for trying bounce out', () => {
    const mock = agent('mock', 'mock', 'mock', null);
    expect(crossFamilyCheck({ reviewer: mock, composer: mock }, false)).toEqual({});
  });
});
