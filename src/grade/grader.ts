import { existsSync, readFileSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { usageError } from '../errors.js';
import { GRADER, GRADER_RULE } from '../store/record-schema.js';

/** `user.name` of one git config file's `[user]` section, if it sets one. */
export function gitUserName(text: string): string | null {
  let section = '';
  let name: string | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/^\s+/, '');
    if (line.startsWith('#') || line.startsWith(';') || line === '') continue;
    const head = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"[^"]*")?\s*\]/.exec(line);
    if (head) {
      section = head[1]!.toLowerCase();
      continue;
    }
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*)$/.exec(line);
    if (section === 'user' && entry && entry[1]!.toLowerCase() === 'name') {
      const value = entry[2]!.replace(/\s+[#;].*$/, '').trim();
      name = value.startsWith('"') && value.endsWith('"') && value.length >= 2 ? value.slice(1, -1) : value;
    }
  }
  return name?.trim() || null;
}

const readIf = (path: string): string | null => {
  try {
    return existsSync(path) && statSync(path).isFile() ? readFileSync(path, 'utf8') : null;
  } catch {
    return null;
  }
};

/** The repository's own config above `cwd` (`.git/config`, or a worktree's `.git` file pointing at its git dir's). */
function repoConfig(cwd: string): string | null {
  let dir = resolve(cwd);
  for (;;) {
    const git = join(dir, '.git');
    if (existsSync(git)) {
      if (statSync(git).isDirectory()) return readIf(join(git, 'config'));
      const pointer = /^gitdir:\s*(.+)$/m.exec(readIf(git) ?? '');
      if (!pointer) return null;
      const gitDir = resolve(dir, pointer[1]!.trim());
      // A worktree's git dir holds no config of its own: the main repository's does (commondir).
      const common = readIf(join(gitDir, 'commondir'));
      return readIf(join(common ? resolve(gitDir, common.trim()) : gitDir, 'config'));
    }
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/**
 * Who grades, as `human:<name>`: `--grader NAME`, else git's user name (GIT_AUTHOR_NAME, the
 * repository's config, then the global one), else the OS user. Read from files and the
 * environment; no program is run.
 */
export function graderName(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string, flagName = '--grader'): string {
  if (flag !== undefined) return checked(flag.trim(), flagName, flagName);
  const home = env.HOME;
  const globals = [
    env.XDG_CONFIG_HOME ? join(env.XDG_CONFIG_HOME, 'git', 'config') : home ? join(home, '.config', 'git', 'config') : null,
    home ? join(home, '.gitconfig') : null,
  ];
  const fromGit =
    env.GIT_AUTHOR_NAME?.trim() || gitUserName(repoConfig(cwd) ?? '') || globals.map((p) => (p ? gitUserName(readIf(p) ?? '') : null)).find((n) => n) || null;
  const name = fromGit ?? (env.USER?.trim() || env.LOGNAME?.trim() || safeUser());
  if (!name) throw usageError('no name: neither git nor the system names a user', `pass ${flagName} NAME`);
  return checked(name, fromGit ? "git's user.name" : 'the OS user name', flagName);
}

function safeUser(): string | null {
  try {
    return userInfo().username || null;
  } catch {
    return null;
  }
}

function checked(name: string, source: string, flagName: string): string {
  const grader = name.startsWith('human:') ? name : `human:${name}`;
  if (!GRADER.test(grader)) throw usageError(`${source} ${JSON.stringify(name)} is no grader name`, `${GRADER_RULE}; pass ${flagName} NAME`);
  return grader;
}
