import { describe, expect, it } from 'vitest';
import type { RunPlan } from '../../src/engine/plan.js';
import { policyOf } from '../../src/engine/policy.js';
import { templatesHash, type Templates } from '../../src/engine/prompt.js';
import { sha256 } from '../../src/store/hash.js';
import { testAgent } from '../support/test-agent.js';

describe('policyOf', () => {
  const templates: Templates = {
    protocol: 'P {{document}}',
    reviewer: 'R',
    composer: 'C',
    final: 'F',
    repair: 'X',
    json: 'J',
    yaml: 'Y',
    whole: 'W',
    edits: 'E',
  };

  function plan(over: Partial<RunPlan> = {}): RunPlan {
    const mock = testAgent({ adapter: 'mock', options: { script: '/s.yaml' }, spec: 'mock:s.yaml' });
    return {
      input: { path: '/doc.md', display: 'doc.md', text: '# Doc\n', bytes: 6, sha256: sha256('# Doc\n'), ext: 'md', syntax: 'markdown' },
      passes: 2,
      allPasses: false,
      agents: { reviewer: mock, composer: mock },
      agentVersions: { reviewer: 'mock-1', composer: 'mock-1' },
      resolved: { reviewer: {}, composer: {} },
      chosenBy: { reviewer: 'flag', composer: 'flag' },
      templates,
      promptsDir: null,
      markers: ['CONTESTED', 'CLARIFY'],
      maxRepairs: 1,
      maxBytes: 2_000_000,
      timeoutMs: { reviewer: 600_000, composer: 600_000 },
      maxOutputTokens: { reviewer: null, composer: null },
      summaryRatio: 0.3,
      summaryMinWords: 50,
      output: { kind: 'run' },
      runsDir: '/runs',
      name: 'doc.md',
      replyMode: 'document',
      lint: 'off',
      goal: null,
      context: { nonce: 'c0c0c0c0c0c0', budget: 262_144, files: [] },
      lenses: [],
      ...over,
    };
  }

  const version = (over: Partial<RunPlan> = {}): string => policyOf(plan(over)).version;

  it('records the settings, a 16-hex-digit version and the templates hash', () => {
    const p = policyOf(plan());
    expect(p.version).toMatch(/^[0-9a-f]{16}$/);
    expect(p).toEqual({
      version: p.version,
      contract_version: 1,
      templates_sha256: templatesHash(templates),
      prompts_dir: null,
      markers: ['CONTESTED', 'CLARIFY'],
      max_repairs: 1,
      summary_ratio: 0.3,
      summary_min_words: 50,
      max_bytes: 2_000_000,
      reply_mode: 'document',
      lint: 'off',
    });
  });

  it('is stable: the same plan gives the same version', () => {
    expect(version()).toBe(version());
  });

  it('does not change with things that do not change what agents are asked or what is accepted', () => {
    const base = version();
    expect(version({ input: { ...plan().input, text: 'other\n', sha256: sha256('other\n') } })).toBe(base);
    expect(version({ timeoutMs: { reviewer: 1, composer: 2 } })).toBe(base);
    expect(version({ output: { kind: 'stdout' } })).toBe(base);
    expect(version({ runsDir: '/elsewhere', name: 'x' })).toBe(base);
    expect(version({ chosenBy: { reviewer: 'config', composer: 'default' } })).toBe(base);
    expect(version({ agentVersions: { reviewer: '9', composer: '9' } })).toBe(base);
  });

  it('changes with lint warn or repair (off is left out, so runs made before lint keep their version)', () => {
    const base = version();
    expect(version({ lint: 'warn' })).not.toBe(base);
    expect(version({ lint: 'repair' })).not.toBe(version({ lint: 'warn' }));
  });

  it('changes with the pass budget and --all-passes', () => {
    const base = version();
    expect(version({ passes: 3 })).not.toBe(base);
    expect(version({ allPasses: true })).not.toBe(base);
  });

  it('changes with the agents: spec, options, or the other role', () => {
    const base = version();
    const other = testAgent({ adapter: 'openai', options: { model: 'llama3.1' }, spec: 'openai:llama3.1' });
    const p = plan();
    expect(version({ agents: { reviewer: other, composer: p.agents.composer } })).not.toBe(base);
    expect(version({ agents: { reviewer: p.agents.reviewer, composer: other } })).not.toBe(base);
    expect(version({ agents: { reviewer: { ...p.agents.reviewer, options: { script: '/t.yaml' } }, composer: p.agents.composer } })).not.toBe(base);
  });

  it('changes with the program of a cmd: agent', () => {
    const a = testAgent({ spec: 'tool', command: '/bin/a' });
    const b = { ...a, command: '/bin/b' };
    expect(version({ agents: { reviewer: a, composer: a } })).not.toBe(version({ agents: { reviewer: b, composer: b } }));
  });

  it('changes with the markers, the templates, the prompts dir and max_repairs', () => {
    const base = version();
    expect(version({ markers: ['CONTESTED', 'CLARIFY', 'RISK'] })).not.toBe(base);
    expect(version({ templates: { ...templates, reviewer: 'R2' } })).not.toBe(base);
    expect(version({ promptsDir: '/prompts' })).not.toBe(base);
    expect(version({ maxRepairs: 2 })).not.toBe(base);
    expect(version({ maxBytes: 10 })).not.toBe(base);
  });
});
