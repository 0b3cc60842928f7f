import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { AgentConfig, Config } from '../config/schema.js';
import { HUMAN_TIMEOUT_S } from '../config/defaults.js';
import { usageError } from '../errors.js';
import { packageRoot } from '../package.js';
import { ownValue } from '../own.js';
import { didYouMean } from '../suggest.js';
import type { AgentOptions, ResolvedAgent } from '../contract/contract.js';
import type { AdapterFacts } from '../kit/facts.js';
import { adapterInfo, BUILTIN_ADAPTERS } from './builtins.js';

/** Declared with the contract; resolved here. */
export type { ResolvedAgent };

/**
 * Absolute path of a built-in adapter program (compiled into dist/adapters/<name>/program.js). The runner
 * calls built-ins in-process (call-agent.ts); the path is what a user runs or wraps.
 */
export function builtinProgram(name: string): string {
  return join(packageRoot(), 'dist', 'adapters', name, 'program.js');
}

export function slugify(text: string): string {
  const slug = text
    .replace(/^cmd:/, '')
    .replace(/.*[\\/]/, '')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug.slice(0, 40) || 'agent';
}

/** The fix for an unknown agent or adapter name: the closest known one first, then every choice. */
function knownSpecs(config: Config, wrong?: string): string {
  const names = [...BUILTIN_ADAPTERS.map((a) => a.name), ...Object.keys(config.agents)];
  const near = wrong === undefined ? undefined : didYouMean(wrong, names);
  return `${near ? `did you mean ${near}? ` : ''}use one of: ${names.join(', ')}, <adapter>:<model> or cmd:<program>`;
}

/**
 * Resolves an agent spec: a configured name, a built-in adapter name, `adapter:model`
 * (split at the first colon, so `openai:llama3.1:8b` keeps its tag), or `cmd:<program>`.
 */
export function resolveAgent(spec: string, config: Config, cwd: string, configDir: string | null): ResolvedAgent {
  const configured = ownValue(config.agents, spec);
  if (configured) return fromConfig(spec, configured, config, cwd, configDir ?? cwd);
  if (spec.startsWith('cmd:')) return cmdAgent(spec, spec.slice(4), {}, undefined, cwd);
  const colon = spec.indexOf(':');
  const name = colon === -1 ? spec : spec.slice(0, colon);
  const rest = colon === -1 ? undefined : spec.slice(colon + 1);
  const info = adapterInfo(name);
  if (!info || rest === '') throw usageError(`unknown agent "${spec}"`, knownSpecs(config, name), 'config');
  const options: AgentOptions = {};
  // What follows the colon: mock's script, else the model, else (an adapter with no model: a2a) the agent's URL.
  if (rest !== undefined) {
    if (info.kind === 'mock') options.script = resolve(cwd, rest);
    else if (info.options.includes('model')) options.model = rest;
    else options.base_url = agentUrl(spec, name, rest);
  }
  return builtin(spec, info, options, undefined);
}

/** The URL in `a2a:<url>`: a bad one is refused here, as config's base_url is by its schema. */
function agentUrl(spec: string, name: string, url: string): string {
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    throw usageError(`agent "${spec}": ${url} is not an http(s) URL`, `write ${name}:https://host/path (http:// only on loopback)`, 'config');
  return url;
}

function fromConfig(spec: string, entry: AgentConfig, config: Config, cwd: string, base: string): ResolvedAgent {
  const { adapter, timeout_s: timeoutS, ...options } = entry;
  if (adapter.startsWith('cmd:')) return cmdAgent(spec, adapter.slice(4), options, timeoutS, base);
  const info = adapterInfo(adapter);
  if (!info) throw usageError(`agents.${spec}.adapter: unknown adapter "${adapter}"`, knownSpecs(config, adapter), 'config');
  const extra = Object.keys(options).filter((k) => !(info.options as readonly string[]).includes(k));
  if (extra.length)
    throw usageError(`agents.${spec}: ${adapter} does not take ${extra.join(', ')}`, `remove them; ${adapter} takes ${info.options.join(', ')}`, 'config');
  if (options.script) options.script = resolve(base, options.script);
  void cwd;
  return builtin(spec, info, options, timeoutS);
}

function builtin(spec: string, info: AdapterFacts, options: AgentOptions, timeoutS: number | undefined): ResolvedAgent {
  return {
    spec,
    slug: slugify(spec),
    adapter: info.name,
    provider: info.provider,
    command: process.execPath,
    args: [builtinProgram(info.name)],
    options,
    // A person's pass waits for the person: a day, unless the agent or --timeout says otherwise.
    timeoutS: timeoutS ?? (info.kind === 'human' ? HUMAN_TIMEOUT_S : undefined),
    evidence: info.kind === 'mock' ? 'mock' : 'live',
  };
}

function cmdAgent(spec: string, program: string, options: AgentOptions, timeoutS: number | undefined, base: string): ResolvedAgent {
  if (!program) throw usageError(`agent "${spec}" names no program`, 'write cmd:<program>, e.g. cmd:./my-agent.py', 'config');
  // A path (has a slash) is resolved against the config file's folder or cwd; a bare name is looked up on PATH.
  const command = program.includes('/') || program.includes('\\') ? (isAbsolute(program) ? program : resolve(base, program)) : program;
  if (command !== program && !existsSync(command)) throw usageError(`adapter program not found: ${program}`, 'check the path after cmd:', 'config');
  return {
    spec,
    slug: slugify(spec),
    adapter: 'cmd',
    provider: 'cmd',
    command,
    args: options.args ?? [],
    options,
    timeoutS,
    // An arbitrary program's provenance is unknown: never call its results live.
    evidence: 'external',
  };
}
