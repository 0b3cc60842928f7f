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

/** The repository's top folder and the merge base of `ref` and HEAD. Throws a usage error naming the fix. */
async function mergeBase(cwd: string, ref: string): Promise<{ root: string; base: string }> {
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
  return { root, base: base.stdout.trim() };
}

/** Absolute paths of the files changed since `ref` (see above). Throws a usage error naming the fix. */
export async function changedFiles(cwd: string, ref: string): Promise<Set<string>> {
  const { root, base } = await mergeBase(cwd, ref);
  const diff = await git(root, ['diff', '--name-only', '--no-renames', '--diff-filter=d', '-z', base, '--']);
  const untracked = await git(root, ['ls-files', '--others', '--exclude-standard', '-z']);
  if (!diff.ok || !untracked.ok)
    throw usageError(
      `git could not list the changes since ${ref}: ${(diff.stderr || untracked.stderr).trim().split('\n')[0]}`,
      'check the repository with git status',
    );
  const names = `${diff.stdout}${untracked.stdout}`.split('\u0000').filter((n) => n !== '');
  return new Set(names.map((n) => resolve(root, n)));
}

/**
 * The lines changed since `ref`, by absolute path: the added and modified lines (the new
 * side of each hunk) of `git diff <merge base>` against the working tree, as `changedFiles`
 * counts changes; an untracked file counts as changed throughout (`'all'`).
 */
export async function changedLines(cwd: string, ref: string): Promise<Map<string, Set<number> | 'all'>> {
  const { root, base } = await mergeBase(cwd, ref);
  // Fixed prefixes and no external diff or colour, whatever the user's git config says.
  const args = ['-c', 'core.quotePath=false', 'diff', '-U0', '--no-renames', '--no-color', '--no-ext-diff', '--src-prefix=a/', '--dst-prefix=b/', base, '--'];
  const diff = await git(root, args);
  const untracked = await git(root, ['ls-files', '--others', '--exclude-standard', '-z']);
  if (!diff.ok || !untracked.ok)
    throw usageError(
      `git could not list the changes since ${ref}: ${(diff.stderr || untracked.stderr).trim().split('\n')[0]}`,
      'check the repository with git status',
    );
  const lines = new Map<string, Set<number> | 'all'>();
  let current: Set<number> | undefined;
  for (const line of diff.stdout.split('\n')) {
    if (line.startsWith('+++ ')) {
      const name = line === '+++ /dev/null' ? undefined : unquote(line.slice(4)).slice(2);
      current = name === undefined ? undefined : new Set();
      if (name !== undefined && current) lines.set(resolve(root, name), current);
      continue;
    }
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (hunk && current) {
      const start = Number(hunk[1]);
      const count = hunk[2] === undefined ? 1 : Number(hunk[2]);
      for (let n = start; n < start + count; n++) current.add(n);
    }
  }
  for (const name of untracked.stdout.split('\u0000')) if (name !== '') lines.set(resolve(root, name), 'all');
  return lines;
}

const C_ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13 };

/** A path as git prints it in a diff header: C-quoted (`"b/a\\tb"`, octal bytes) when it holds a special character. */
export function unquote(s: string): string {
  if (s.length < 2 || !s.startsWith('"') || !s.endsWith('"')) return s;
  // A backslash (0x5c) is never part of a multibyte UTF-8 sequence, so the escapes are read byte by byte.
  const body = Buffer.from(s.slice(1, -1), 'utf8');
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    if (body[i] !== 0x5c) {
      bytes.push(body[i] as number);
      continue;
    }
    const next = String.fromCharCode(body[++i] as number);
    if (/[0-7]/.test(next)) {
      bytes.push(Number.parseInt(body.subarray(i, i + 3).toString('latin1'), 8));
      i += 2;
    } else bytes.push(C_ESCAPES[next] ?? next.charCodeAt(0));
  }
  return Buffer.from(bytes).toString('utf8');
}
