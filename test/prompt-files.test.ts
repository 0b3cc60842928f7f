import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultPromptsDir, normaliseTemplate, packageTemplate } from '../src/prompt-files.js';
import { ROOT } from './support/cli.js';

describe('prompt files', () => {
  it("the package's templates are in its prompts/ folder", () => {
    expect(defaultPromptsDir()).toBe(join(ROOT, 'prompts'));
    expect(readdirSync(defaultPromptsDir())).toContain('reviewer.md');
  });

  it('a template is read without a BOM and with LF line ends', () => {
    expect(normaliseTemplate('\uFEFFline 1\r\nline 2\r\n')).toBe('line 1\nline 2\n');
    const reviewer = packageTemplate('reviewer');
    expect(reviewer.length).toBeGreaterThan(0);
    expect(reviewer).not.toMatch(/\r|^\uFEFF/);
  });
});
