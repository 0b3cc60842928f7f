import { dirname, resolve } from 'node:path';
import { configNamed } from '../config/in-use.js';
import { loadConfigKeys, runsDirFor } from '../config/load.js';
import { DEFAULT_MAX_PASSES } from '../config/defaults.js';
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
 * What a printed step needs from where it is printed: the options that find the run
 * (runLocationFlags), and the most passes a run may have under the config that step reads
 * (`max_passes`), which a `--passes N` it offers stays within.
 */
export interface StepPlace {
  flags: string;
  maxPasses: number;
}

export function stepPlace(where: RunLocation, io: Pick<Io, 'cwd' | 'env'>): StepPlace {
  return { flags: runLocationFlags(where, io), maxPasses: maxPassesAt(where.config, io) };
}

/** `max_passes` of the config a command given `--config config` reads from cwd (else BOUNCE_CONFIG, bounce.config.yaml); its default when that config no longer reads. */
export function maxPassesAt(config: string | undefined, io: Pick<Io, 'cwd' | 'env'>): number {
  try {
    return loadConfigKeys(io.cwd, io.env, config, ['max_passes']).config.max_passes;
  } catch {
    return DEFAULT_MAX_PASSES; // the step names the config all the same, and reading it says what is wrong
  }
}

/**
 * runLocationFlags for a hint naming the run in folder `runDir`, from a command whose options
 * do not carry its --config: the config it was told to read (`--config` or `BOUNCE_CONFIG`,
 * as findConfig recorded it) unless `config` is given.
 */
export function runHintFlags(runDir: string, io: Pick<Io, 'cwd' | 'env'>, config?: string): string {
  return runLocationFlags({ runsDir: dirname(resolve(io.cwd, runDir)), config: config ?? configNamed() }, io);
}
