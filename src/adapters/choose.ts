import type { Config } from '../config/schema.js';
import { usageError } from '../errors.js';
import type { Role } from '../contract/contract.js';
import { createProbe, findProgram, localModels, type Probe } from '../kit/detect.js';
import type { LoginState } from '../kit/login.js';
import { resolveAgent, type ResolvedAgent } from './registry.js';
import { invokedAs } from './invoked-as.js';
import { ADAPTER_TABLE, type CliName, cliFacts, cliLogin, DEFAULT_CLIS } from './builtins.js';

/** A default agent that was not picked, and why, for the user: `warning: <agent> skipped: <reason>: <fix>`. */
export interface SkippedAgent {
  agent: CliName;
  /**
   * `not_logged_in`: installed, but it reports no login while another one has one;
   * `login_unverified`: its login cannot be verified offline while another one's can.
   */
  why: 'not_logged_in' | 'login_unverified';
  reason: string;
  fix: string;
}

export interface Chosen {
  agents: Record<Role, ResolvedAgent>;
  chosenBy: Record<Role, string>;
  /** Default CLIs left out although installed (empty when flags or config named both agents). */
  skipped: SkippedAgent[];
  /** Default CLIs chosen although their login could not be verified offline (none could), each with its fix. */
  unverified: SkippedAgent[];
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
  /** The script Node ran, for the command the "no agent found" message offers (see invokedAs). */
  launcher?: string;
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
  const resolved: Partial<Record<Role, ResolvedAgent>> = {};
  const chosenBy: Record<Role, string> = { reviewer: 'default', composer: 'default' };
  for (const role of ['reviewer', 'composer'] as const) {
    const fromFlag = flags[role];
    const fromConfig = config[role];
    if (fromFlag !== undefined && fromFlag.trim() === '')
      throw usageError(`--${role} is empty`, 'name an agent, e.g. claude, codex, openai:<model> or mock (see bounce adapters)', 'usage');
    const spec = fromFlag || fromConfig;
    // A named agent is resolved before anything is detected: a mistyped name gets "did you mean", not "no agent found".
    if (spec) [resolved[role], chosenBy[role]] = [resolveAgent(spec, config, cwd, configDir), fromFlag ? 'flag' : 'config'];
  }
  const { reviewer, composer } = resolved;
  // One pass runs no composer: it takes the reviewer's agent rather than sending anyone looking for one.
  if (input.composerUnused && !composer && reviewer) return both(reviewer, chosenBy.reviewer, 'unused (one pass)');
  // One agent named for one role takes both, as one detected agent does.
  if (reviewer && !composer) return both(reviewer, chosenBy.reviewer, 'same as the reviewer: no composer named');
  if (composer && !reviewer) return both(composer, 'same as the composer: no reviewer named', chosenBy.composer);
  if (reviewer && composer) return { agents: { reviewer, composer }, chosenBy, skipped: [], unverified: [] };
  const defaults = await detectDefaults(
    env,
    config,
    input.probe ?? createProbe(),
    () => `${invokedAs(input.launcher, env, cwd)} refine ${input.doc ?? '<doc>'}`,
  );
  return {
    agents: {
      reviewer: resolveAgent(defaults.reviewer, config, cwd, configDir),
      composer: resolveAgent(defaults.composer, config, cwd, configDir),
    },
    chosenBy: { reviewer: defaults.how, composer: defaults.how },
    skipped: defaults.skipped,
    unverified: defaults.unverified,
  };
}

/** One agent in both roles, each with how it came to be there. */
function both(agent: ResolvedAgent, reviewerBy: string, composerBy: string): Chosen {
  return { agents: { reviewer: agent, composer: agent }, chosenBy: { reviewer: reviewerBy, composer: composerBy }, skipped: [], unverified: [] };
}

/** The lines `bounce refine` prints for the skipped defaults. */
export function skippedWarnings(skipped: readonly SkippedAgent[], unverified: readonly SkippedAgent[] = []): string[] {
  return [
    ...skipped.map((s) => `warning: ${s.agent} skipped as a default agent: ${s.reason}: ${s.fix}`),
    ...unverified.map((s) => `warning: ${s.agent} chosen as a default agent, but ${s.reason}: ${s.fix}`),
  ];
}

interface Installed {
  name: CliName;
  login: LoginState;
}

/** The installed default CLIs in detection order, each with its login (asked offline, concurrently). */
async function installedClis(env: NodeJS.ProcessEnv, probe: Probe): Promise<Installed[]> {
  const one = async (name: CliName): Promise<Installed | null> => {
    const program = findProgram(cliFacts(name), env);
    if (program === null) return null;
    const [version, login] = await Promise.all([probe.version(program, env), cliLogin(name)(program, env, probe)]);
    // A CLI too slow to answer is still installed: the check then says it ran out of time.
    return version === null && !(await probe.versionTimedOut(program)) ? null : { name, login };
  };
  return (await Promise.all(DEFAULT_CLIS.map(one))).filter((c): c is Installed => c !== null);
}

type Defaults = { reviewer: string; composer: string; how: string; skipped: SkippedAgent[]; unverified: SkippedAgent[] };

/** A CLI left out or taken with a doubt, with the first finding of its login as the reason and the fix. */
function doubt(c: Installed, why: SkippedAgent['why']): SkippedAgent {
  const finding = c.login.findings.find((f) => (why === 'not_logged_in' ? f.severity === 'problem' : f.kind === 'login_unverified'));
  const fallback = why === 'not_logged_in' ? `${c.name} is not logged in` : `${c.name}'s login cannot be verified offline`;
  return { agent: c.name, why, reason: finding?.message ?? fallback, fix: finding?.fix ?? `log in to ${c.name}` };
}

/**
 * The default agents: the first usable CLI (in the order claude, codex, gemini, opencode)
 * reviews and the second composes, so two different CLIs take the two roles when two are
 * there; one installed CLI takes both roles. A CLI that reports no login is left out while
 * another one has a login (and said so in `skipped`), and one whose login cannot be
 * verified offline comes after every one whose login can (a chosen one is listed in
 * `unverified`); with none installed, a local OpenAI-compatible server.
 */
async function detectDefaults(env: NodeJS.ProcessEnv, config: Config, probe: Probe, refine: () => string): Promise<Defaults> {
  const installed = await installedClis(env, probe);
  const verified = installed.filter((c) => c.login.loggedIn === true);
  const unknown = installed.filter((c) => c.login.loggedIn === null);
  const ready = [...verified, ...unknown];
  // Nobody logged in: keep them all, and preflight names the login to fix.
  const usable = ready.length > 0 ? ready : installed;
  const skipped = installed.filter((c) => !usable.includes(c)).map((c) => doubt(c, 'not_logged_in'));
  const names = usable.map((c) => c.name);
  const [first, second] = names;
  const taken = usable.slice(0, first === undefined ? 0 : second === undefined ? 1 : 2);
  const unverified = taken.filter((c) => c.login.loggedIn === null).map((c) => doubt(c, 'login_unverified'));
  const notes = [
    ...(skipped.length > 0 ? [`${skipped.map((s) => s.agent).join(' and ')} not logged in`] : []),
    ...(unverified.length > 0 ? [`${unverified.map((s) => s.agent).join(' and ')}: login not verified`] : []),
  ];
  const note = notes.length > 0 ? notes.join('; ') : null;
  if (first && second) return { reviewer: first, composer: second, how: note ? `default (${note})` : 'default', skipped, unverified };
  const only = first;
  if (only) return { reviewer: only, composer: only, how: `default (${note ?? `only ${only} is installed`})`, skipped, unverified };
  const openai = ADAPTER_TABLE.openai;
  const base = (openai.baseUrlEnv && env[openai.baseUrlEnv]) || (openai.defaultBaseUrl ?? '');
  const models = await localModels(base);
  if (models) {
    // The model the user configured for a local openai agent on this server, else the first one listed.
    const configured = Object.entries(config.agents).find(
      ([, a]) => a.adapter === 'openai' && a.model && (a.base_url ?? base).replace(/\/+$/, '') === base.replace(/\/+$/, ''),
    );
    const spec = configured ? configured[0] : models[0] ? `openai:${models[0]}` : null;
    if (spec) return { reviewer: spec, composer: spec, how: `default (local server at ${base})`, skipped, unverified: [] };
  }
  throw usageError(
    `no agent found: looked for the ${DEFAULT_CLIS.join(', ')} CLIs on PATH and an OpenAI-compatible server at ${base}`,
    `install one (${DEFAULT_CLIS.map((name) => `npm i -g ${cliFacts(name).npmPackage}`).join(', or ')}), start Ollama, or name agents with --reviewer/--composer (see bounce adapters); to try bounce without any model: ${refine()} --reviewer mock`,
    'config',
  );
}
