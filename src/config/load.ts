import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { z } from 'zod';
import { type BounceError, usageError } from '../errors.js';
import { readSmallFile } from '../text-input.js';
import { configErrorMap, issueLines } from './issues.js';
import { AgentConfigSchema, ConfigSchema, DEFAULT_CONFIG, type Config } from './schema.js';
import { yamlLib } from '../yaml.js';

import { CONFIG_FILE, setConfigInUse } from './in-use.js';

export { CONFIG_FILE };

export interface LoadedConfig<C = Config> {
  config: C;
  /** Absolute path of the file read, or null when defaults were used. */
  path: string | null;
}

/**
 * Finds the config: `--config FILE`, else `BOUNCE_CONFIG`, else bounce.config.yaml in cwd
 * or the nearest parent, stopping at a repository root (a folder with .git) or `/`. What it
 * finds is the file hints name from then on (in-use.ts).
 */
export function findConfig(cwd: string, env: NodeJS.ProcessEnv, explicit?: string): string | null {
  const named = explicit ?? (env.BOUNCE_CONFIG || undefined);
  if (named) {
    const path = resolve(cwd, named);
    if (!existsSync(path)) throw usageError(`config file not found: ${named}`, 'check the --config path or BOUNCE_CONFIG', 'config');
    setConfigInUse(named, true);
    return path;
  }
  let dir = resolve(cwd);
  for (;;) {
    const candidate = join(dir, CONFIG_FILE);
    if (existsSync(candidate)) {
      const rel = relative(resolve(cwd), candidate);
      setConfigInUse(rel.startsWith('..') || isAbsolute(rel) ? candidate : rel);
      return candidate;
    }
    const parent = dirname(dir);
    if (existsSync(join(dir, '.git')) || parent === dir) {
      setConfigInUse(null);
      return null;
    }
    dir = parent;
  }
}

function readConfigText(cwd: string, env: NodeJS.ProcessEnv, explicit?: string): { text: string; path: string } | null {
  const path = findConfig(cwd, env, explicit);
  if (!path) return null;
  const directory = (): BounceError => usageError(`config path is a directory: ${path}`, 'point --config at a YAML file', 'config');
  return { text: readSmallFile(path, `config file ${path}`, 'config', { directory }), path };
}

export function loadConfig(cwd: string, env: NodeJS.ProcessEnv, explicit?: string): LoadedConfig {
  const found = readConfigText(cwd, env, explicit);
  return found ? { config: parseConfig(found.text, found.path), path: found.path } : { config: DEFAULT_CONFIG, path: null };
}

/**
 * Only `keys` of the config, validated; a mistake elsewhere in the file does not stop a
 * command that does not read it (`scan` reads `markers`, `runs` and the like `runs_dir`).
 */
export function loadConfigKeys<K extends keyof Config>(
  cwd: string,
  env: NodeJS.ProcessEnv,
  explicit: string | undefined,
  keys: K[],
): LoadedConfig<Pick<Config, K>> {
  const found = readConfigText(cwd, env, explicit);
  if (!found) return { config: DEFAULT_CONFIG, path: null };
  const mask: Partial<Record<keyof Config, true>> = Object.fromEntries(keys.map((k) => [k, true]));
  const raw = parseYamlText(found.text, found.path);
  const part = ConfigSchema.pick(mask).strip();
  return { config: validate(part, raw ?? {}, found.path) as Pick<Config, K>, path: found.path };
}

function parseYamlText(text: string, label: string): unknown {
  try {
    return yamlLib().parse(text, { prettyErrors: true });
  } catch (err) {
    const detail = (err instanceof yamlLib().YAMLParseError ? (err.message.split('\n')[0] ?? '') : String(err)).replace(/:\s*$/, '');
    throw usageError(`${label}: invalid YAML: ${detail}`, 'fix the syntax of the config file', 'config');
  }
}

/** The keys an object of the config may have at `path`, for "did you mean". */
function knownKeys(path: (string | number)[]): string[] {
  if (path.length === 0) return Object.keys(ConfigSchema.shape);
  if (path.length === 2 && path[0] === 'agents') return Object.keys(AgentConfigSchema.shape);
  return [];
}

function validate<S extends z.ZodTypeAny>(schema: S, raw: unknown, label: string): z.infer<S> {
  const result = schema.safeParse(raw, { errorMap: configErrorMap });
  if (result.success) return result.data;
  throw usageError(`${label}: ${issueLines(result.error.issues, knownKeys).join('; ')}`, 'fix these keys (see docs/configuration.md)', 'config');
}

/** Parses and validates config text; every problem is reported as `file: path: message`. */
export function parseConfig(text: string, label: string): Config {
  const raw = parseYamlText(text, label);
  if (raw === null || raw === undefined) return DEFAULT_CONFIG;
  return validate(ConfigSchema, raw, label);
}

/** The runs dir: the flag (relative to cwd), else runs_dir (relative to the config file), else ./runs. */
export function runsDirFor(cwd: string, loaded: LoadedConfig<Pick<Config, 'runs_dir'>>, flag?: string): string {
  if (flag) return resolve(cwd, flag);
  if (loaded.config.runs_dir) return resolve(loaded.path ? dirname(loaded.path) : cwd, loaded.config.runs_dir);
  return resolve(cwd, 'runs');
}
