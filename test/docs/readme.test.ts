import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** Long option names a command's real --help lists. */
async function optionsOf(command: string): Promise<string[]> {
  const r = await runMain([command, '--help'], { cwd: tempDir() });
  expect(r.code).toBe(0);
  return [...new Set([...r.stdout.matchAll(/--[a-z][a-z-]+/g)].map((m) => m[0]))].filter((o) => o !== '--help');
}

describe('the README matches the CLI', () => {
  it('documents every option of bounce refine', async () => {
    for (const option of await optionsOf('refine')) expect(README, `${option} is missing from the README`).toMatch(new RegExp(`\`(-\\w, )?${option}[ \`]`));
  });

  it('lists every command of bounce --help', async () => {
    const r = await runMain(['--help'], { cwd: tempDir() });
    const commands = [...r.stdout.split('Commands:')[1]!.matchAll(/^ {2}([a-z]+)/gm)].map((m) => m[1]!).filter((c) => c !== 'help');
    expect(commands.length).toBeGreaterThanOrEqual(10);
    for (const c of commands) expect(README, `bounce ${c} is missing from the README`).toContain(`\`bounce ${c}`);
  });

  it('links only to files that exist', () => {
    for (const [, target] of README.matchAll(/\]\(([^)#]+)(?:#[^)]*)?\)/g)) {
      if (/^https?:/.test(target!)) continue;
      expect(existsSync(join(ROOT, target!)), `README links to missing ${target}`).toBe(true);
    }
  });
});
