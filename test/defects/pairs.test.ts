import { describe, expect, it } from 'vitest';
import { parsePairs, splitPair } from '../../src/defects/pairs.js';

const KNOWN = ['claude', 'codex', 'mock', 'openai', 'cmd', 'local-llama'];

describe('--pairs', () => {
  it('splits where the composer agent starts, whatever slashes the specs hold', () => {
    expect(splitPair('claude/codex', KNOWN)).toEqual({ pair: 'claude/codex', reviewer: 'claude', composer: 'codex' });
    expect(splitPair('mock:scripts/a.yaml/mock:scripts/b.yaml', KNOWN)).toMatchObject({ reviewer: 'mock:scripts/a.yaml', composer: 'mock:scripts/b.yaml' });
    expect(splitPair('cmd:./bin/agent.mjs/local-llama', KNOWN)).toMatchObject({ reviewer: 'cmd:./bin/agent.mjs', composer: 'local-llama' });
    expect(splitPair('openai:org/model/claude:opus', KNOWN)).toMatchObject({ reviewer: 'openai:org/model', composer: 'claude:opus' });
  });

  it('refuses a pair with no split, or more than one', () => {
    expect(() => splitPair('claude', KNOWN)).toThrow(/"claude" is not REVIEWER\/COMPOSER/);
    expect(() => splitPair('claude/nobody', KNOWN)).toThrow(/not REVIEWER\/COMPOSER/);
    expect(() => splitPair('mock:a.yaml/mock:b.yaml/mock', KNOWN)).toThrow(/can be split in 2 places/);
  });

  it('takes comma-separated and repeated values, each pair once', () => {
    expect(parsePairs(['claude/codex,codex/claude', 'mock/mock'], KNOWN).map((p) => p.pair)).toEqual(['claude/codex', 'codex/claude', 'mock/mock']);
    expect(() => parsePairs(['claude/codex,claude/codex'], KNOWN)).toThrow(/named twice/);
    expect(() => parsePairs(['claude/codex,'], KNOWN)).toThrow(/no pair \(or an empty one\)/);
  });
});
