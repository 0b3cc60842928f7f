/**
 * The fix that changes one setting of an agent (`timeout_s`, `max_output_tokens`), as the
 * user can apply it: under the agent's own `agents:` entry when it has one, else the exact
 * entry to add, so a hint never names a config entry that does not exist.
 */
import { configInUse } from '../config/in-use.js';
import { TIMEOUT_RANGE_S } from '../config/defaults.js';
import type { ResolvedAgent } from './registry.js';
import { adapterInfo } from './builtins.js';

/** A value of a one-line YAML flow mapping: a word as it is, anything else quoted. */
const flow = (v: string | number): string => (typeof v === 'number' || /^[A-Za-z0-9_.-]+$/.test(v) ? String(v) : JSON.stringify(v));

/** Whether the spec names an entry under `agents:`: not a built-in name, not `adapter:model` nor `cmd:`. */
export function isConfiguredName(spec: string): boolean {
  return !spec.includes(':') && adapterInfo(spec) === undefined;
}

/**
 * `set timeout_s under agents.review in bounce.config.yaml`, or for an agent named on the
 * command line the entry to add: for a built-in name an entry of that very name (it then
 * stands for the built-in in every run, resume included), else a new name to use instead.
 */
export function agentSettingFix(agent: Pick<ResolvedAgent, 'spec' | 'slug' | 'adapter' | 'options'>, key: string, value: number): string {
  if (isConfiguredName(agent.spec)) return `set ${key} under agents.${agent.spec} in ${configInUse()}`;
  const fields: [string, string | number][] = [];
  if (agent.adapter === 'cmd') fields.push(['adapter', agent.spec]);
  else {
    fields.push(['adapter', agent.adapter]);
    if (agent.options.model) fields.push(['model', agent.options.model]);
    if (agent.options.script) fields.push(['script', agent.options.script]);
  }
  fields.push([key, value]);
  const builtinName = adapterInfo(agent.spec) !== undefined;
  const name = builtinName ? agent.spec : agent.slug;
  const entry = `agents: {${name}: {${fields.map(([k, v]) => `${k}: ${flow(v)}`).join(', ')}}}`;
  return builtinName ? `add to ${configInUse()}: ${entry}` : `add to ${configInUse()}: ${entry}, and name the agent ${name} instead of ${agent.spec}`;
}

/** The fix of a dispatch that ran out of time: the flag that works for any agent, and the agent's own entry when it has one. */
export function timeoutFix(agent: Pick<ResolvedAgent, 'spec'>, timeoutMs: number): string {
  const longer = Math.min(TIMEOUT_RANGE_S.max, Math.ceil((timeoutMs / 1000) * 2));
  const entry = isConfiguredName(agent.spec) ? `, or set timeout_s under agents.${agent.spec} in ${configInUse()}` : '';
  return `pass a longer deadline, e.g. --timeout ${longer} (bounce resume takes it too)${entry}`;
}
