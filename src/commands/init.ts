/**
 * `bounce init`: writes a commented bounce.config.yaml in the working directory naming the
 * agents found here (the CLIs that are installed and logged in, else a local
 * OpenAI-compatible server), with the other kinds of agent shown in comments. With none
 * found it names no role (the mock agents are shown commented out), so a CLI installed
 * later is still detected. It never overwrites a file.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chooseAgents, type SkippedAgent, skippedWarnings } from '../adapters/choose.js';
import { createProbe } from '../kit/detect.js';
import { endpointFor } from '../kit/endpoint.js';
import { ADAPTER_TABLE } from '../adapters/builtins.js';
import { CONFIG_FILE } from '../config/load.js';
import { DEFAULT_CONFIG } from '../config/schema.js';
import { DEFAULT_MAX_PASSES } from '../config/defaults.js';
import { EXIT, isBounceError, usageError } from '../errors.js';
import type { Io } from '../io.js';

/** What the file is written from: the two roles, an agent entry for a local server, and what was found. */
export interface InitChoice {
  /** null: nothing was found, and the roles stay unset (refine detects the agents each time). */
  reviewer: string | null;
  composer: string | null;
  /** A local OpenAI-compatible server found on its default port: written as the `local` agent. */
  local: { model: string; baseUrl: string } | null;
  /** How the roles were chosen, as one comment line. */
  how: string;
  skipped: SkippedAgent[];
  /** Chosen although their login could not be verified offline. */
  unverified?: SkippedAgent[];
}

const EXAMPLES = `# To add an agent, replace \`agents: {}\` above with entries like these, and name
# them in reviewer / composer (or with --reviewer / --composer):
#
# agents:
#   # Any OpenAI-compatible endpoint (Ollama, vLLM, llama.cpp, OpenRouter). Off loopback
#   # it needs https and a key variable: api_key_env names it, never the key itself.
#   local:
#     adapter: openai
#     model: llama3.1
#     base_url: http://127.0.0.1:11434/v1
#     timeout_s: 600
#   router:
#     adapter: openai
#     model: anthropic/claude-sonnet-4.5
#     base_url: https://openrouter.ai/api/v1
#     api_key_env: OPENROUTER_API_KEY
#   # The Anthropic Messages API with a key (ANTHROPIC_API_KEY by default).
#   sonnet:
#     adapter: anthropic
#     model: claude-sonnet-4-5
#   # The CLIs with options of your own.
#   opus:
#     adapter: claude
#     model: opus
#     max_budget_usd: 1.00
#   # Any program that speaks the adapter contract (docs/adapter-contract.md).
#   mine:
#     adapter: cmd:./my-agent.py
#     args: [--temperature, "0.2"]
#     timeout_s: 300
`;

const yamlString = (s: string): string => (/^[A-Za-z0-9][A-Za-z0-9_.:/-]*$/.test(s) && !/^(true|false|null|yes|no|on|off)$/i.test(s) ? s : JSON.stringify(s));

/** The text of the file for a choice. Every key it sets is one the config loader accepts. */
export function configText(choice: InitChoice): string {
  const lines = [
    '# bounce.config.yaml, written by `bounce init`. Reference: docs/configuration.md.',
    '# `bounce check` shows what each agent resolves to; `bounce adapters` lists the options.',
    '',
    `# Who plays which role: ${choice.how}.`,
    '# The flags --reviewer and --composer override these.',
    ...(choice.reviewer !== null && choice.composer !== null
      ? [`reviewer: ${yamlString(choice.reviewer)}`, `composer: ${yamlString(choice.composer)}`]
      : [
          '# Unset, each refine looks for the CLIs (and a local server) again. To try bounce with',
          '# no model, the mock agents (scripted replies, never a live result):',
          '# reviewer: mock',
          '# composer: mock',
        ]),
  ];
  for (const s of choice.skipped) lines.push(`# Not chosen: ${s.reason}; ${s.fix}.`);
  lines.push('');
  if (choice.local) {
    lines.push(
      '# The OpenAI-compatible server found on this machine (loopback: no key needed).',
      'agents:',
      '  local:',
      '    adapter: openai',
      `    model: ${yamlString(choice.local.model)}`,
      `    base_url: ${yamlString(choice.local.baseUrl)}`,
      '    timeout_s: 600',
      '',
      EXAMPLES.replace('replace `agents: {}` above with entries like these', 'add entries like these under `agents:`'),
    );
  } else lines.push('# Agents you define and name yourself.', 'agents: {}', '', EXAMPLES);
  lines.push('# Where run folders go, and the most passes a run may ask for.', '# runs_dir: runs', `# max_passes: ${DEFAULT_MAX_PASSES}`, '');
  return lines.join('\n');
}

/** The agents found here, as chooseAgents would pick them with no flags and no config. */
export async function findAgents(io: Io): Promise<InitChoice> {
  try {
    const chosen = await chooseAgents({ flags: {}, config: DEFAULT_CONFIG, configDir: null, cwd: io.cwd, env: io.env, probe: createProbe() });
    const { reviewer, composer } = chosen.agents;
    const how = chosen.chosenBy.reviewer;
    if (reviewer.adapter === 'openai' && reviewer.options.model) {
      // The server chooseAgents found: the openai adapter's own base URL with no options.
      const { baseUrl } = endpointFor(ADAPTER_TABLE.openai, {}, io.env);
      return {
        reviewer: 'local',
        composer: 'local',
        local: { model: reviewer.options.model, baseUrl },
        how: `found ${how}`,
        skipped: chosen.skipped,
        unverified: chosen.unverified,
      };
    }
    return {
      reviewer: reviewer.spec,
      composer: composer.spec,
      local: null,
      how: `found here (${how})`,
      skipped: chosen.skipped,
      unverified: chosen.unverified,
    };
  } catch (err) {
    if (!isBounceError(err)) throw err;
    const how = 'no CLI, login or local server was found here, so none is named yet';
    return { reviewer: null, composer: null, local: null, how, skipped: [] };
  }
}

export async function runInit(_opts: Record<string, never>, io: Io): Promise<number> {
  const path = join(io.cwd, CONFIG_FILE);
  const refuse = () => usageError(`${CONFIG_FILE} already exists here`, 'edit it, or move it away to write a new one with bounce init', 'config');
  if (existsSync(path)) throw refuse();
  const choice = await findAgents(io);
  try {
    // `wx`: never replace a file, even one created since we looked.
    writeFileSync(path, configText(choice), { flag: 'wx', mode: 0o644 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw refuse();
    throw err;
  }
  const roles = choice.reviewer === null ? 'no agent found, none named (mock commented out)' : `reviewer ${choice.reviewer}, composer ${choice.composer}`;
  io.stdout.write(`wrote ${CONFIG_FILE}: ${roles}\n`);
  for (const line of skippedWarnings(choice.skipped, choice.unverified)) io.stderr.write(`${line}\n`);
  return EXIT.ok;
}
