import { dirname, resolve } from 'node:path';
import { configNamed } from '../config/in-use.js';
import { loadConfigKeys, runsDirFor } from '../config/load.js';
import { displayPath } from '../documents.js';
import type { Io } from '../io.js';

/** How a command found its runs: the runs folder the run is in, and the --config it was given, if any. */
export interface RunLocation {
  /** The folder holding the run's folder (absolute, or relative to cwd). */
  runsDir: string;
  /** `--config FILE` as given to the command (else `BOUNCE_CONFIG`, when set, is named). */
  config?: string | undefined;
}

/** A path as one shell word: as it is when it holds nothing a shell reads, else in single quotes. */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The options a printed command (a `next:` step, a hint naming a run) needs to find the run
 * from cwd as the command that prints it did: `--config FILE` when one was given, or else
 * `BOUNCE_CONFIG` named one (a resume reads its agents from it too, and the step may be run
 * where the variable is not set), and `--runs-dir DIR` when the run is not in the runs folder
 * that config (else `BOUNCE_CONFIG`, bounce.config.yaml or ./runs) names. Each after a
 * space, to append to the command; '' when the defaults find the run.
 */
export function runLocationFlags(where: RunLocation, io: Pick<Io, 'cwd' | 'env'>): string {
  const flags: string[] = [];
  const config = where.config ?? (io.env.BOUNCE_CONFIG || undefined);
  if (config !== undefined) flags.push(`--config ${shellWord(displayPath(config, io.cwd, 'absolute'))}`);
  const runsDir = resolve(io.cwd, where.runsDir);
  let found: string | null;
  try {
    found = runsDirFor(io.cwd, loadConfigKeys(io.cwd, io.env, config, ['runs_dir']));
  } catch {
    found = null; // a config that no longer reads: the flag says where the run is all the same
  }
  if (found === null || resolve(found) !== runsDir) flags.push(`--runs-dir ${shellWord(displayPath(runsDir, io.cwd, 'absolute'))}`);
  return flags.map((f) => ` ${f}`).join('');
}

/**
 * runLocationFlags for a hint naming the run in folder `runDir`, from a command whose options
 * do not carry its --config: the config it was told to read (`--config` or `BOUNCE_CONFIG`,
 * as findConfig recorded it) unless `config` is given.
 */
export function runHintFlags(runDir: string, io: Pick<Io, 'cwd' | 'env'>, config?: string): string {
  return runLocationFlags({ runsDir: dirname(resolve(io.cwd, runDir)), config: config ?? configNamed() }, io);
}
