/** `bounce verify --changed <ref>`: only the documents git lists as changed since the ref are checked. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

let repo: string;
const git = (...args: string[]): string => execFileSync('git', args, { cwd: repo, encoding: 'utf8', env: cleanEnv({ GIT_CONFIG_NOSYSTEM: '1', HOME: repo }) });

beforeAll(async () => {
  repo = tempDir();
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 't@example.com');
  git('config', 'user.name', 't');
  mkdirSync(join(repo, 'docs'));
  writeFileSync(join(repo, 'docs', 'kept.md'), '# Kept\n\nNo attestation, and not changed.\n');
  writeFileSync(join(repo, 'docs', 'refined.md'), '# Refined\n\nDeploys happen on Tuesdays.\n');
  git('add', '.');
  git('commit', '-qm', 'base');
  git('checkout', '-qb', 'feature');
  writeFileSync(join(repo, 'r.yaml'), `steps:\n  "1": ${JSON.stringify('# Refined\n\nDeploys happen on Tuesdays and Thursdays.\n')}\n`);
  const refine = await runMain(['refine', 'docs/refined.md', '--reviewer', 'mock:r.yaml', '--passes', '1', '--in-place', '--quiet'], { cwd: repo });
  expect(refine.code, refine.stderr).toBe(0);
  expect((await runMain(['attest', 'latest'], { cwd: repo })).code).toBe(0);
  writeFileSync(join(repo, 'docs', 'added.md'), '# Added\n\nNot refined.\n');
  git('add', 'docs');
  git('commit', '-qm', 'feature');
});

describe('bounce verify --changed', () => {
  it('checks only the changed documents: the attested one passes, the one with no attestation fails, the unchanged one is left out', async () => {
    const r = await runMain(['verify', 'docs', '--changed', 'main', '--json'], { cwd: repo });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.documents.map((d: { document: string; ok: boolean }) => [d.document, d.ok])).toEqual([
      ['docs/added.md', false],
      ['docs/refined.md', true],
    ]);
    const all = await runMain(['verify', 'docs'], { cwd: repo });
    expect(all.stdout).toMatch(/fail: docs\/kept\.md: no attestation matches it/);
  });

  it('refuses an unknown ref with a one-line usage error', async () => {
    const r = await runMain(['verify', 'docs', '--changed', 'no-such-ref'], { cwd: repo });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^bounce: unknown git ref no-such-ref for --changed/);
  });
});
