import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config/schema.js';
import { resolveAgent } from '../../src/adapters/registry.js';
import { withHumanFile } from '../../src/request/human-file.js';

const project = join('/home', 'user', 'project');
const agent = (spec: string) => resolveAgent(spec, DEFAULT_CONFIG, project, null);

describe('--human-file', () => {
  it('gives the human agent the file, resolved from the cwd, and leaves the other agent alone', () => {
    const agents = withHumanFile({ reviewer: agent('mock'), composer: agent('human') }, 'pass.md', project);
    expect(agents.composer.options).toEqual({ script: join(project, 'pass.md') });
    expect(agents.reviewer.options).toEqual({});
  });

  it('changes nothing without the flag', () => {
    const agents = { reviewer: agent('human'), composer: agent('mock') };
    expect(withHumanFile(agents, undefined, project)).toBe(agents);
  });

  it('is refused without a human agent, or empty', () => {
    expect(() => withHumanFile({ reviewer: agent('mock'), composer: agent('mock') }, 'x.md', project)).toThrow(/neither agent is human/);
    expect(() => withHumanFile({ reviewer: agent('human'), composer: agent('mock') }, ' ', project)).toThrow(/--human-file is empty/);
  });

  it("gives a person's pass a day, and human:<name> carries the name", () => {
    expect(agent('human').timeoutS).toBe(86_400);
    expect(agent('human:Ana Lopez')).toMatchObject({ adapter: 'human', options: { model: 'Ana Lopez' } });
  });
});
