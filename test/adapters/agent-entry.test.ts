/** agentSettingFix, timeoutFix: a hint names the flag that works, or an agents: entry that exists or is given whole. */
import { describe, expect, it } from 'vitest';
import { agentSettingFix, timeoutFix } from '../../src/adapters/agent-entry.js';
import { resolveAgent } from '../../src/adapters/registry.js';
import { DEFAULT_CONFIG } from '../../src/config/schema.js';
import { parseConfig } from '../../src/config/load.js';
import { ROOT } from '../support/adapter-process.js';

const config = { ...DEFAULT_CONFIG, agents: { review: { adapter: 'openai', model: 'llama3.1' } } };
const agent = (spec: string) => resolveAgent(spec, config, ROOT, null);

describe('agentSettingFix', () => {
  it('a configured agent: its own entry', () => {
    expect(agentSettingFix(agent('review'), 'max_output_tokens', 32000)).toBe('set max_output_tokens under agents.review in bounce.config.yaml');
  });

  it('an agent named on the command line: the whole entry to add, which the config loader accepts', () => {
    const cases: [string, string][] = [
      ['claude', 'add to bounce.config.yaml: agents: {claude: {adapter: claude, max_output_tokens: 32000}}'],
      [
        'openai:llama3.1:8b',
        'add to bounce.config.yaml: agents: {openai-llama3.1-8b: {adapter: openai, model: "llama3.1:8b", max_output_tokens: 32000}}, and name the agent openai-llama3.1-8b instead of openai:llama3.1:8b',
      ],
      [
        'cmd:package.json',
        'add to bounce.config.yaml: agents: {package.json: {adapter: "cmd:package.json", max_output_tokens: 32000}}, and name the agent package.json instead of cmd:package.json',
      ],
    ];
    for (const [spec, fix] of cases) {
      expect(agentSettingFix(agent(spec), 'max_output_tokens', 32000)).toBe(fix);
      const entry = fix.replace(/^add to bounce\.config\.yaml: /, '').replace(/, and name the agent .*$/, '');
      const parsed = parseConfig(entry, 'bounce.config.yaml');
      const name = Object.keys(parsed.agents)[0]!;
      expect(resolveAgent(name, parsed, ROOT, ROOT).options.max_output_tokens, spec).toBe(32000);
    }
  });
});

describe('timeoutFix', () => {
  it('gives the flag, with twice the deadline, and the entry only when there is one', () => {
    expect(timeoutFix(agent('cmd:package.json'), 600_000)).toBe('pass a longer deadline, e.g. --timeout 1200 (bounce resume takes it too)');
    expect(timeoutFix(agent('review'), 600_000)).toBe(
      'pass a longer deadline, e.g. --timeout 1200 (bounce resume takes it too), or set timeout_s under agents.review in bounce.config.yaml',
    );
  });
});
