import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

/** Reviewer and composer of one model family (src/adapters/family.ts, docs/judge-and-gate.md "Model family"). */
let dir: string;
beforeEach(() => {
  dir = tempDir();
  writeFileSync(join(dir, 'doc.md'), '# Plan\n\nThe rollout starts on Monday.\n');
});

const ONE_FAMILY = ['refine', 'doc.md', '--reviewer', 'openai:gpt-4o', '--composer', 'openai:gpt-4o-mini', '--dry-run'];

describe('reviewer and composer of one family', () => {
  it('get a warning that names both and the family', async () => {
    const r = await runMain(ONE_FAMILY, { cwd: dir, env: { OPENAI_API_KEY: 'sk-test-family' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: the reviewer openai:gpt-4o and the composer openai:gpt-4o-mini are both of the openai model family/);
  });

  it('are refused with require_cross_family before anything is written, and agents of two families are not', async () => {
    writeFileSync(join(dir, 'bounce.config.yaml'), 'require_cross_family: true\n');
    const r = await runMain(ONE_FAMILY.slice(0, -1), { cwd: dir, env: { OPENAI_API_KEY: 'sk-test-family' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^bounce: the reviewer openai:gpt-4o and the composer openai:gpt-4o-mini are both of the openai model family, and require_cross_family is set/m,
    );
    expect(existsSync(join(dir, 'runs'))).toBe(false);
    const two = await runMain(['refine', 'doc.md', '--reviewer', 'openai:gpt-4o', '--composer', 'openai:llama3.1', '--dry-run'], {
      cwd: dir,
      env: { OPENAI_API_KEY: 'sk-test-family' },
    });
    expect(two.code, two.stderr).toBe(0);
    expect(two.stderr).not.toMatch(/model family/);
  });

  it('the mock agents are left alone', async () => {
    writeFileSync(join(dir, 'bounce.config.yaml'), 'require_cross_family: true\n');
    const r = await runMain(['refine', 'doc.md', '--reviewer', 'mock', '--composer', 'mock'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/model family/);
  });
});
