/**
 * `--changed <ref>`: the files a branch touched since it left `ref`. Committed changes since
 * the merge base (what `git diff <ref>...` shows), plus staged, unstaged and untracked
 * (not ignored) files, so a local run sees work not yet committed; in CI, on a clean
 * checkout, that is exactly what the pull request changed. Deleted files are left out.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { usageError } from '../errors.js';

const GIT_TIMEOUT_MS = 30_000;
const MAX_BUFFER = 64 * 1024 * 1024;

interface GitResult {
  ok: boolean;
  stdout: string;
  stderr: string;
  missing?: boolean;
}

function git(cwd: string, args: string[]): Promise<GitResult> {
  return new Promise((done) => {
    execFile('git', args, { cwd, timeout: GIT_TIMEOUT_MS, maxBuffer: MAX_BUFFER, encoding: 'utf8' }, (err, stdout, stderr) => {
      done({ ok: !err, stdout, stderr, missing: (err as NodeJS.ErrnoException | null)?.code === 'ENOENT' });
    });
  });
}

/** Absolute paths of the files changed since `ref` (see above). Throws a usage error naming the fix. */
export async function changedFiles(cwd: string, ref: string): Promise<Set<string>> {
  if (ref === '' || ref.startsWith('-'))
    throw usageError(`--changed needs a git ref, not ${JSON.stringify(ref)}`, 'name a branch, tag or commit, e.g. --changed origin/main');
  // The top as a path relative to cwd (`../..`), so symlinks in cwd's path do not matter.
  const top = await git(cwd, ['rev-parse', '--show-cdup']);
  if (top.missing) throw usageError('--changed needs git, which is not installed', 'install git, or drop --changed');
  if (!top.ok) throw usageError('--changed works only inside a git repository', 'run bounce from a git checkout, or drop --changed');
  const root = resolve(cwd, top.stdout.trim());
  const commit = await git(cwd, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  if (!commit.ok)
    throw usageError(`unknown git ref ${ref} for --changed`, 'name an existing branch, tag or commit (in CI, fetch it first: git fetch origin main)');
  const base = await git(cwd, ['merge-base', commit.stdout.trim(), 'HEAD']);
  if (!base.ok) throw usageError(`no common history between ${ref} and HEAD for --changed`, 'fetch more history (actions/checkout: fetch-depth: 0)');
  const diff = await git(root, ['diff', '--name-only', '--no-renames', '--diff-filter=d', '-z', base.stdout.trim(), '--']);
  const untracked = await git(root, ['ls-files', '--others', '--exclude-standard', '-z']);
  if (!diff.ok || !untracked.ok)
    throw usageError(
      `git could not list the changes since ${ref}: ${(diff.stderr || untracked.stderr).trim().split('\n')[0]}`,
      'check the repository with git status',
    );
  const names = `${diff.stdout}${untracked.stdout}`.split('\u0000').filter((n) => n !== '');
  return new Set(names.map((n) => resolve(root, n)));
}
