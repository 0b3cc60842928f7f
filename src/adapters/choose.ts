import type { Config } from '../config/schema.js';
import { usageError } from '../errors.js';
import type { Role } from './contract.js';
import { createProbe, findProgram, localModels, type Probe } from './detect.js';
import { claudeLogin, codexLogin, geminiLogin, type LoginState, opencodeLogin } from './login.js';
import { resolveAgent, type ResolvedAgent } from './registry.js';
import { ADAPTER_TABLE, type CliName, cliFacts, DEFAULT_CLIS } from './table.js';

/** A default agent that was not picked, and why, for the user: `warning: <agent> skipped: <reason>: <fix>`. */
export interface SkippedAgent {
  agent: CliName;
  /** `not_logged_in`: installed, but it reports no login while another one has one. */
  why: 'not_logged_in';
  reason: string;
  fix: string;
}

export interface Chosen {
  agents: Record<Role, ResolvedAgent>;
  chosenBy: Record<Role, string>;
  /** Default CLIs left out although installed (empty when flags or config named both agents). */
  skipped: SkippedAgent[];
}

export interface ChooseInput {
  flags: Partial<Record<Role, string>>;
  config: Config;
  configDir: string | null;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** This invocation's probe: the `--version` asked here is not asked again by the check. */
  probe?: Probe;
  /** The document as the user named it, for the command the "no agent found" message offers. */
  doc?: string;
  /** The run has one pass, so no composer is called: without a composer flag or config, it is the reviewer's agent. */
  composerUnused?: boolean;
}

/**
 * Picks each role's agent: the flag, else the config, else the defaults (the first two
 * installed CLIs in the order claude, codex, gemini, opencode review and compose; one
 * installed CLI takes both roles, and one that reports no login is left out while another
 * has one; with none, a local OpenAI-compatible server on its default port).
 */
export async function chooseAgents(input: ChooseInput): Promise<Chosen> {
  const { flags, config, configDir, cwd, env } = input;
  const specs: Partial<Record<Role, string>> = {};
  const chosenBy: Record<Role, string> = { reviewer: 'default', composer: 'default' };
  for (const role of ['reviewer', 'composer'] as const) {
    const fromFlag = flags[role];
    const fromConfig = config[role];
    if (fromFlag !== undefined && fromFlag.trim() === '')
      throw usageError(`--${role} is empty`, 'name an agent, e.g. claude, codex, openai:<model> or mock (see bounce adapters)', 'usage');
    if (fromFlag) [specs[role], chosenBy[role]] = [fromFlag, 'flag'];
    else if (fromConfig) [specs[role], chosenBy[role]] = [fromConfig, 'config'];
  }
  // One pass runs no composer: it takes the reviewer's agent rather than sending anyone looking for one.
  if (input.composerUnused && !specs.composer && specs.reviewer) [specs.composer, chosenBy.composer] = [specs.reviewer, 'unused (one pass)'];
  let skipped: SkippedAgent[] = [];
  if (!specs.reviewer || !specs.composer) {
    const defaults = await detectDefaults(env, config, input.probe ?? createProbe(), input.doc ?? '<doc>');
    specs.reviewer ??= defaults.reviewer;
    specs.composer ??= defaults.composer;
    skipped = defaults.skipped;
    for (const role of ['reviewer', 'composer'] as const) if (chosenBy[role] === 'default') chosenBy[role] = defaults.how;
  }
  return {
    agents: {
      reviewer: resolveAgent(specs.reviewer, config, cwd, configDir),
      composer: resolveAgent(specs.composer as string, config, cwd, configDir),
    },
    chosenBy,
    skipped,
  };
}

/** The lines `bounce refine` prints for the skipped defaults. */
export function skippedWarnings(skipped: readonly SkippedAgent[]): string[] {
  return skipped.map((s) => `warning: ${s.agent} skipped as a default agent: ${s.reason}: ${s.fix}`);
}

interface Installed {
  name: CliName;
  login: LoginState;
}

/** How each default CLI's login is asked, offline. */
const LOGINS: Record<CliName, (program: string, env: NodeJS.ProcessEnv, probe: Probe) => Promise<LoginState>> = {
  claude: claudeLogin,
  codex: codexLogin,
  gemini: (_program, env) => geminiLogin(env),
  opencode: (_program, env) => opencodeLogin(null, env),
};

/** The installed default CLIs in detection order, each with its login (asked offline, concurrently). */
async function installedClis(env: NodeJS.ProcessEnv, probe: Probe): Promise<Installed[]> {
  const one = async (name: CliName): Promise<Installed | null> => {
    const program = findProgram(cliFacts(name), env);
    if (program === null) return null;
    const [version, login] = await Promise.all([probe.version(program, env), LOGINS[name](program, env, probe)]);
    // A CLI too slow to answer is still installed: the check then says it ran out of time.
    return version === null && !(await probe.versionTimedOut(program)) ? null : { name, login };
  };
  return (await Promise.all(DEFAULT_CLIS.map(one))).filter((c): c is Installed => c !== null);
}

type Defaults = { reviewer: string; composer: string; how: string; skipped: SkippedAgent[] };

/**
 * The default agents: the first usable CLI (in the order claude, codex, gemini, opencode)
 * reviews and the second composes, so two different CLIs take the two roles when two are
 * there; one installed CLI takes both roles. A CLI that reports no login is left out while
 * another one has a login (and said so in `skipped`); with none installed, a local
 * OpenAI-compatible server.
 */
async function detectDefaults(env: NodeJS.ProcessEnv, config: Config, probe: Probe, doc: string): Promise<Defaults> {
  const installed = await installedClis(env, probe);
  const ready = installed.filter((c) => c.login.loggedIn !== false);
  // Nobody logged in: keep them all, and preflight names the login to fix.
  const usable = ready.length > 0 ? ready : installed;
  const skipped: SkippedAgent[] = installed
    .filter((c) => !usable.includes(c))
    .map((c) => {
      const finding = c.login.findings.find((f) => f.severity === 'problem');
      return { agent: c.name, why: 'not_logged_in', reason: finding?.message ?? `${c.name} is not logged in`, fix: finding?.fix ?? `log in to ${c.name}` };
    });
  const names = usable.map((c) => c.name);
  const note = skipped.length > 0 ? `${skipped.map((s) => s.agent).join(' and ')} not logged in` : null;
  const [first, second] = names;
  if (first && second) return { reviewer: first, composer: second, how: note ? `default (${note})` : 'default', skipped };
  const only = first;
  if (only) return { reviewer: only, composer: only, how: `default (${note ?? `only ${only} is installed`})`, skipped };
  const openai = ADAPTER_TABLE.openai;
  const base = (openai.baseUrlEnv && env[openai.baseUrlEnv]) || (openai.defaultBaseUrl ?? '');
  const models = await localModels(base);
  if (models) {
    // The model the user configured for a local openai agent on this server, else the first one listed.
    const configured = Object.entries(config.agents).find(
      ([, a]) => a.adapter === 'openai' && a.model && (a.base_url ?? base).replace(/\/+$/, '') === base.replace(/\/+$/, ''),
    );
    const spec = configured ? configured[0] : models[0] ? `openai:${models[0]}` : null;
    if (spec) return { reviewer: spec, composer: spec, how: `default (local server at ${base})`, skipped };
  }
  throw usageError(
    `no agent found: looked for the ${DEFAULT_CLIS.join(', ')} CLIs on PATH and an OpenAI-compatible server at ${base}`,
    `install one (${DEFAULT_CLIS.map((name) => `npm i -g ${cliFacts(name).npmPackage}`).join(', or ')}), start Ollama, or name agents with --reviewer/--composer (see bounce adapters); to try bounce without any model: bounce refine ${doc} --reviewer mock --composer mock`,
    'config',
  );
}
