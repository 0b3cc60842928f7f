/** The check commands of a refine (--check-cmd, else config `checks:`): read and checked once, before the first dispatch. */
import { isAbsolute, resolve } from 'node:path';
import { type CheckSpec, splitCommand } from '../checks/command.js';
import { DEFAULT_CHECK_TIMEOUT_S } from '../config/defaults.js';
import { type Config, MAX_CHECKS } from '../config/schema.js';
import { usageError } from '../errors.js';
import { isExecutable, onPath } from '../kit/detect.js';

/**
 * The checks `--check-cmd` (each with the default time limit) names, else config `checks:`,
 * in order. Each is split into words now, so a bad command is a usage error before anything
 * runs, and its program is looked for now (on PATH, or relative to `cwd`, the folder the
 * checks run in): a check that cannot start is refused here rather than on the first reply.
 */
export function readChecks(
  flags: readonly string[] | undefined,
  config: Config['checks'],
  cwd: string,
  env: NodeJS.ProcessEnv,
  configPath: string | null,
): CheckSpec[] {
  const fromFlag = (flags ?? []).length > 0;
  const what = fromFlag ? '--check-cmd' : `checks in ${configPath ?? 'the config'}`;
  const specs: CheckSpec[] = fromFlag
    ? (flags ?? []).map((command) => ({ command: command.trim(), timeout_s: DEFAULT_CHECK_TIMEOUT_S }))
    : (config ?? []).map((c) => (typeof c === 'string' ? { command: c, timeout_s: DEFAULT_CHECK_TIMEOUT_S } : c));
  if (specs.length > MAX_CHECKS)
    throw usageError(`${what} names ${specs.length} checks, over the limit of ${MAX_CHECKS}`, 'combine some of them into one script', 'usage');
  const seen = new Set<string>();
  for (const spec of specs) {
    const label = `${what}: \`${spec.command}\``;
    if (seen.has(spec.command)) throw usageError(`${label} is named twice`, 'name each check once', 'usage');
    seen.add(spec.command);
    const [program] = splitCommand(spec.command, label) as [string];
    if (!findable(program, cwd, env))
      throw usageError(
        `${label}: ${program} not found`,
        program.includes('/')
          ? `check the path (relative to ${cwd}) or make it executable`
          : `install ${program}, put it on PATH, or give its path (e.g. node_modules/.bin/${program})`,
        'config',
      );
  }
  return specs;
}

/** A program name found on PATH, or a path (relative to `cwd`) to an executable file. */
function findable(program: string, cwd: string, env: NodeJS.ProcessEnv): boolean {
  if (program.includes('/') || isAbsolute(program)) return isExecutable(resolve(cwd, program));
  return onPath(program, env) !== null;
}
