/** `refine --gate` and config `gate: live` in-process, with mock agents (transport only). */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

const DOC = '# Migration\n\nWe move the database on Saturday night.\n';
let dir: string;
let cache: string;
beforeEach(() => {
  dir = tempDir();
  cache = tempDir('bounce-gate-cache-');
  writeFileSync(join(dir, 'doc.md'), DOC);
  writeFileSync(join(dir, 'echo.yaml'), 'steps:\n  default: { action: echo }\n');
});
const env = () => cleanEnv({ XDG_CACHE_HOME: cache });
const runs = (): string[] => (existsSync(join(dir, 'runs')) ? readdirSync(join(dir, 'runs')).filter((n) => !n.startsWith('.')) : []);

describe('refine --gate', () => {
  it("checks each agent once, runs the refine, and takes today's pass from the cache the next time", async () => {
    const first = await runMain(['refine', 'doc.md', '--reviewer', 'mock', '--composer', 'mock', '--gate'], { cwd: dir, env: env() });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr.match(/^gate: mock passed/gm)).toHaveLength(1);
    const second = await runMain(['refine', 'doc.md', '--reviewer', 'mock', '--composer', 'mock', '--gate'], { cwd: dir, env: env() });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/gate: mock passed \(.*passed earlier today, from the cache\)/);
    expect(runs()).toHaveLength(2);
  });

  it('refuses a failing agent before any real dispatch: exit 3, error type agent, no run folder', async () => {
    const r = await runMain(['refine', 'doc.md', '--reviewer', 'mock', '--composer', 'mock:echo.yaml', '--gate', '--json'], { cwd: dir, env: env() });
    expect(r.code).toBe(3);
    const out = JSON.parse(r.stdout);
    expect(out.error).toMatchObject({ type: 'agent' });
    expect(out.error.message).toMatch(/the live gate refused mock:echo\.yaml: no note was added/);
    expect(runs()).toHaveLength(0);
  });

  it('config gate: live turns it on; a failure is not cached, so it is checked again', async () => {
    writeFileSync(join(dir, 'bounce.config.yaml'), 'gate: live\n');
    for (let i = 0; i < 2; i++) {
      const r = await runMain(['refine', 'doc.md', '--reviewer', 'mock:echo.yaml', '--passes', '1'], { cwd: dir, env: env() });
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/^gate: mock:echo\.yaml failed \(/m);
      expect(r.stderr).not.toContain('from the cache');
    }
    writeFileSync(join(dir, 'bounce.config.yaml'), 'gate: sometimes\n');
    const bad = await runMain(['refine', 'doc.md', '--reviewer', 'mock'], { cwd: dir, env: env() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('gate');
  });

  it('a batch is gated once per agent before its runs are made', async () => {
    writeFileSync(join(dir, 'other.md'), DOC.replace('Migration', 'Cutover'));
    const r = await runMain(['refine', 'doc.md', 'other.md', '--reviewer', 'mock', '--composer', 'mock:echo.yaml', '--gate'], { cwd: dir, env: env() });
    expect(r.code).toBe(3);
    expect(r.stderr.match(/^gate: /gm)).toHaveLength(2);
    expect(runs()).toHaveLength(0);
  });
});
