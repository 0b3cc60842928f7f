import { execFileSync } from 'node:child_process';

/** Mounts a tmpfs of `size` at `dir`; false where the machine does not allow it (not root, no mount). */
export function mountTmpfs(dir: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Remounts the tmpfs at `dir` read-only, or writable again. */
export function remount(dir: string, mode: 'ro' | 'rw'): void {
  execFileSync('mount', ['-o', `remount,${mode}`, dir]);
}
