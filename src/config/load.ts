import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { usageError } from '../errors.js';
import { ConfigSchema, DEFAULT_CONFIG, type Config } from './schema.js';

export const CONFIG_FILE = 'bounce.config.yaml';

export interface LoadedConfig {
  config: Config;
  /** Absolute path of the file read, or null when defaults were used. */
  path: string | null;
}

/**
 * Finds the config: `--config FILE`, else `BOUNCE_CONFIG`, else bounce.config.yaml in cwd
 * or the nearest parent, stopping at a repository root (a folder with .git) or `/`.
 */
export function findConfig(cwd: string, env: NodeJS.ProcessEnv, explicit?: string): string | null {
  const named = explicit ?? (env.BOUNCE_CONFIG || undefined);
  if (named) {
    const path = resolve(cwd, named);
    if (!existsSync(path)) throw usageError(`config file not found: ${named}`, 'check the --config path or BOUNCE_CONFIG', 'config');
    return path;
  }
  let dir = resolve(cwd);
  for (;;) {
    const candidate = join(dir, CONFIG_FILE);
    if (existsSync(candidate)) return candidate;
    if (existsSync(join(dir, '.git'))) return null;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

export function loadConfig(cwd: string, env: NodeJS.ProcessEnv, explicit?: string): LoadedConfig {
  const path = findConfig(cwd, env, explicit);
  if (!path) return { config: DEFAULT_CONFIG, path: null };
  if (statSync(path).isDirectory()) throw usageError(`config path is a directory: ${path}`, 'point --config at a YAML file', 'config');
  return { config: parseConfig(readFileSync(path, 'utf8'), path), path };
}

/** Parses and validates config text; every problem is reported as `file: path: message`. */
export function parseConfig(text: string, label: string): Config {
  let raw: unknown;
  try {
    raw = parseYaml(text, { prettyErrors: true });
  } catch (err) {
    const detail = (err instanceof YAMLParseError ? (err.message.split('\n')[0] ?? '') : String(err)).replace(/:\s*$/, '');
    throw usageError(`${label}: invalid YAML: ${detail}`, 'fix the syntax of the config file', 'config');
  }
  if (raw === null || raw === undefined) return DEFAULT_CONFIG;
  const result = ConfigSchema.safeParse(raw);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`);
    throw usageError(`${label}: ${problems.join('; ')}`, 'fix these keys (see docs/configuration.md)', 'config');
  }
  return result.data;
}

/** The runs dir: the flag (relative to cwd), else runs_dir (relative to the config file), else ./runs. */
export function runsDirFor(cwd: string, loaded: LoadedConfig, flag?: string): string {
  if (flag) return resolve(cwd, flag);
  if (loaded.config.runs_dir) return resolve(loaded.path ? dirname(loaded.path) : cwd, loaded.config.runs_dir);
  return resolve(cwd, 'runs');
}
