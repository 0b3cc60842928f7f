import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

let repo: string;
const git = (...args: string[]): string => execFileSync('git', args, { cwd: repo, encoding: 'utf8', env: cleanEnv({ GIT_CONFIG_NOSYSTEM: '1', HOME: repo }) });

beforeAll(() => {
  repo = tempDir();
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 't@example.com');
  git('config', 'user.name', 't');
  mkdirSync(join(repo, 'docs'));
  for (const f of ['old.md', 'edited.md', 'deleted.md', 'staged.md']) writeFileSync(join(repo, 'docs', f), 'Text.\n[CLARIFY] Which? (A) a (B) b\n');
  git('add', '.');
  git('commit', '-qm', 'base');
  git('checkout', '-qb', 'feature');
  writeFileSync(join(repo, 'docs/edited.md'), 'Text.\n[CONTESTED] Use two.\n');
  git('rm', '-q', 'docs/deleted.md');
  writeFileSync(join(repo, 'docs/committed.md'), 'Text.\n[CLARIFY] x or y?\n');
  git('add', '.');
  git('commit', '-qm', 'feature');
  writeFileSync(join(repo, 'docs/staged.md'), 'Text.\n[CLARIFY] Staged, or not?\n');
  git('add', 'docs/staged.md');
  writeFileSync(join(repo, 'docs/untracked.md'), 'Text.\n[CLARIFY] New, or old?\n');
  writeFileSync(join(repo, '.gitignore'), 'ignored.md\n');
  writeFileSync(join(repo, 'docs/ignored.md'), 'Text.\n[CLARIFY] ignored?\n');
});

const files = (stdout: string): string[] =>
  [
    ...new Set(
      stdout
        .trim()
        .split('\n')
        .map((l) => l.split(':')[0]!),
    ),
  ].sort();

describe('--changed <git-ref>', () => {
  it('scan: committed, staged, unstaged and untracked changes since the merge base; not deleted, unchanged or ignored files', async () => {
    const r = await runMain(['scan', 'docs', '--changed', 'main'], { cwd: repo });
    expect(r.code).toBe(1);
    expect(files(r.stdout)).toEqual(['docs/committed.md', 'docs/edited.md', 'docs/staged.md', 'docs/untracked.md']);
  });

  it('works from a subfolder, and lint takes it too', async () => {
    const r = await runMain(['lint', '.', '--changed', 'main', '-f', 'json'], { cwd: join(repo, 'docs') });
    expect(JSON.parse(r.stdout).files.map((f: { path: string }) => f.path)).toEqual(['committed.md', 'edited.md', 'staged.md', 'untracked.md']);
  });

  it('nothing changed: exit 0 with no notes', async () => {
    const r = await runMain(['scan', 'docs/old.md', '--changed', 'main'], { cwd: repo });
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: 'no notes (0 files scanned)\n' });
  });

  it('github: notes on lines changed since the merge base come first (unstaged edits and untracked files count), then the rest', async () => {
    const lines = ['Intro.', '[CLARIFY] Old one? (A) a (B) b', 'Kept.', '[CLARIFY] Old two? (A) a (B) b'];
    writeFileSync(join(repo, 'docs/order.md'), `${lines.join('\n')}\n`);
    git('add', 'docs/order.md');
    git('commit', '-qm', 'order base');
    git('checkout', '-qb', 'order');
    writeFileSync(join(repo, 'docs/order.md'), `${[...lines, 'New text.', '[CONTESTED] New: use two.'].join('\n')}\n`);
    git('commit', '-qam', 'order');
    // Unstaged: line 4's note reworded.
    writeFileSync(
      join(repo, 'docs/order.md'),
      `${[...lines.slice(0, 3), '[CLARIFY] Old two, reworded? (A) a (B) b', 'New text.', '[CONTESTED] New: use two.'].join('\n')}\n`,
    );
    writeFileSync(join(repo, 'docs/zz-new.md'), 'Text.\n[CLARIFY] Brand new? (A) a (B) b\n');
    try {
      const r = await runMain(['scan', 'docs/order.md', 'docs/zz-new.md', 'docs/old.md', '--format', 'github', '--changed', 'HEAD~1'], { cwd: repo });
      const where = r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => /file=([^,]+),line=(\d+)/.exec(l)!.slice(1).join(':'));
      expect(where).toEqual(['docs/order.md:4', 'docs/order.md:6', 'docs/zz-new.md:2', 'docs/order.md:2']);
    } finally {
      git('checkout', '-q', '--', 'docs/order.md');
      git('checkout', '-q', 'feature');
      execFileSync('rm', [join(repo, 'docs/zz-new.md')]);
    }
  });

  it('an unknown ref is a one-line error naming the fix', async () => {
    const r = await runMain(['scan', 'docs', '--changed', 'origin/mian'], { cwd: repo });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^bounce: unknown git ref origin\/mian for --changed: name an existing branch, tag or commit .*\n$/);
  });

  it('outside a git repository is a one-line error naming the fix', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.md'), 'x\n');
    const r = await runMain(['scan', 'a.md', '--changed', 'main'], { cwd: dir, env: cleanEnv({ GIT_CEILING_DIRECTORIES: join(dir, '..') }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('bounce: --changed works only inside a git repository: run bounce from a git checkout, or drop --changed\n');
  });

  it('a ref that looks like an option is refused', async () => {
    const r = await runMain(['scan', 'docs', '--changed=--output=x'], { cwd: repo });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^bounce: --changed needs a git ref/);
  });
});
