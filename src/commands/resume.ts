import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Role } from '../adapters/contract.js';
import { resolveAgent } from '../adapters/registry.js';
import { markStalePending, createAuditTrail } from '../audit/records.js';
import { loadConfig, runsDirFor } from '../config/load.js';
import { usageError } from '../errors.js';
import type { Io } from '../io.js';
import { sha256 } from '../store/hash.js';
import { acquireLock } from '../store/lock.js';
import { readManifest, writeManifest, type RunManifest } from '../store/manifest.js';
import { resolveRunDir } from '../store/resolve-run.js';
import { RunFolder } from '../store/run-folder.js';
import { finishRun } from '../runner/finish.js';
import { runLoop } from '../runner/loop.js';
import { outputTarget } from '../runner/output.js';
import type { OutputTarget, RunPlan } from '../runner/plan.js';
import { policyOf } from '../runner/policy.js';
import { preflight } from '../runner/preflight.js';
import { createProgress } from '../runner/progress.js';
import { loadTemplates } from '../runner/prompt.js';
import { markersFor } from './refine-plan.js';

export interface ResumeOptions {
  run: string;
  runsDir?: string;
  out?: string;
  inPlace?: boolean;
  json?: boolean;
  quiet?: boolean;
  config?: string;
}

const RESUMABLE = new Set(['running', 'interrupted', 'failed']);

/** Rebuilds the plan a run was made with, from run.json and today's config and templates. */
async function planFromManifest(m: RunManifest, runDir: string, io: Io, opts: ResumeOptions): Promise<RunPlan> {
  const { config, path } = loadConfig(io.cwd, io.env, opts.config);
  const configDir = path ? dirname(path) : null;
  const text = readFileSync(join(runDir, m.original), 'utf8');
  const perRole = <T>(f: (role: Role) => T): Record<Role, T> => ({ reviewer: f('reviewer'), composer: f('composer') });
  const agents = perRole((role) => resolveAgent(m.agents[role].spec, config, io.cwd, configDir));
  const recorded: OutputTarget =
    m.output.target === 'file' || m.output.target === 'in-place' ? { kind: m.output.target, path: m.output.path as string } : { kind: m.output.target };
  const overridden = opts.out !== undefined || opts.inPlace;
  return {
    input: { path: m.input.path, display: m.input.display, text, bytes: m.input.bytes, sha256: m.input.sha256, ext: m.input.ext, syntax: m.input.syntax },
    passes: m.passes.requested,
    allPasses: m.passes.all_passes,
    agents,
    agentVersions: perRole((r) => m.agents[r].version),
    resolved: perRole((r) => m.agents[r].resolved),
    chosenBy: perRole((r) => m.agents[r].chosen_by),
    templates: await loadTemplates(m.policy.prompts_dir ?? undefined),
    promptsDir: m.policy.prompts_dir,
    // Today's settings, not the recorded ones: a difference shows up as a policy change.
    markers: markersFor(config),
    maxRepairs: m.policy.max_repairs,
    maxBytes: config.max_bytes,
    timeoutMs: perRole((r) => Math.round(m.agents[r].timeout_s * 1000)),
    maxOutputTokens: perRole((r) => m.agents[r].max_output_tokens),
    summaryRatio: config.summary_ratio,
    summaryMinWords: config.summary_min_words,
    output: overridden ? outputTarget({ out: opts.out, inPlace: opts.inPlace, json: opts.json }, m.input.path, io.cwd) : recorded,
    runsDir: dirname(runDir),
    name: m.run_id,
    replyMode: m.policy.reply_mode,
  };
}

function policyDifference(old: RunManifest['policy'], now: RunManifest['policy']): string {
  const keys = Object.keys(old) as (keyof RunManifest['policy'])[];
  const changed = keys.filter((k) => k !== 'version' && JSON.stringify(old[k]) !== JSON.stringify(now[k]));
  return changed.length ? changed.join(', ') : 'the agents or their options';
}

/**
 * `bounce resume <run>`: finishes an interrupted or crashed run from its last completed
 * pass, to the result and output a whole run would have reached. Refused (exit 2) when
 * the policy changed, the breaker opened, or an in-place input changed meanwhile.
 */
export async function runResume(opts: ResumeOptions, io: Io): Promise<number> {
  const runsDir = runsDirFor(io.cwd, loadConfig(io.cwd, io.env, opts.config), opts.runsDir);
  const runDir = resolveRunDir(opts.run, runsDir, io.cwd);
  let manifest: RunManifest;
  try {
    manifest = readManifest(runDir);
  } catch (err) {
    throw usageError(
      `${runDir}/run.json cannot be read (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`,
      'the run cannot be resumed; start a new one with bounce refine',
      'resume',
    );
  }
  if (manifest.breaker.open)
    throw usageError(
      `run ${manifest.run_id} stopped because its circuit breaker opened (${manifest.breaker.last_error})`,
      'such a run is never resumed: fix the agent and start a new run',
      'resume',
    );
  if (!RESUMABLE.has(manifest.status))
    throw usageError(`run ${manifest.run_id} is already ${manifest.status}`, 'only interrupted, crashed or failed runs can be resumed', 'resume');
  const plan = await planFromManifest(manifest, runDir, io, opts);
  const policy = policyOf(plan);
  if (policy.version !== manifest.policy.version) {
    throw usageError(
      `run ${manifest.run_id} was made under another policy (${policyDifference(manifest.policy, policy)} changed)`,
      'the run is kept as it is; start a new run with bounce refine',
      'resume',
    );
  }
  if (plan.output.kind === 'in-place') {
    const path = plan.output.path;
    if (!existsSync(path) || sha256(readFileSync(path)) !== manifest.input.sha256) {
      throw usageError(`${path} changed since the run began`, "an --in-place run is not resumed over someone else's edits; start a new run", 'resume');
    }
  }
  const checks = await preflight(plan.agents, io.env);
  const release = acquireLock(runDir);
  try {
    const folder = new RunFolder(runDir);
    const reason = 'the runner stopped before this dispatch finished';
    const stale = markStalePending(runDir, reason);
    for (const rec of manifest.pass_records) {
      for (const d of rec.dispatches) if (stale.includes(d.id) || d.status === 'pending') [d.status, d.reason] = ['error', reason];
      // A pass the crash cut short is kept as evidence; its rerun gets a record of its own.
      if (rec.status === 'running') rec.status = 'interrupted';
    }
    const last = [...manifest.pass_records].reverse().find((r) => r.status === 'completed' && r.document);
    const current = last?.document
      ? { text: readFileSync(join(runDir, last.document), 'utf8'), file: last.document }
      : { text: plan.input.text, file: manifest.original };
    plan.agentVersions = { reviewer: checks.reviewer.version ?? plan.agentVersions.reviewer, composer: checks.composer.version ?? plan.agentVersions.composer };
    manifest.status = 'running';
    // The breaker never opened (that is refused above); a resumed run starts a fresh count.
    manifest.breaker.consecutive_failures = 0;
    manifest.exit_code = null;
    manifest.error = null;
    manifest.finished_at = null;
    writeManifest(runDir, manifest);
    folder.log(`resume: continuing after pass ${last?.pass ?? 0}${stale.length ? `; ${stale.length} pending dispatch record(s) marked error` : ''}`);
    if (!opts.quiet) io.stderr.write(`resuming ${manifest.run_id} after pass ${last?.pass ?? 0} of ${plan.passes}\n`);
    const state = {
      plan,
      folder,
      manifest,
      hooks: createAuditTrail(runDir),
      io,
      progress: createProgress(io, Boolean(opts.quiet)),
      current,
      retryBaseMs: Number(io.env.BOUNCE_RETRY_BASE_MS) || 1000,
    };
    const result = await runLoop(state);
    return finishRun(state, result, opts).exitCode;
  } finally {
    release();
  }
}
