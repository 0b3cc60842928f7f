/** What `bounce resume` (and a batch's resume) decides before it runs: whether a run may be resumed or extended, and its plan. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Probe } from '../kit/detect.js';
import type { RunPlan } from '../engine/plan.js';
import { verifyRun } from '../audit/verify.js';
import { policyOf } from '../engine/policy.js';
import { assertOutputWritable } from './output-target.js';
import { displayPath } from '../documents.js';
import { isBounceError, usageError } from '../errors.js';
import { configInUse } from '../config/in-use.js';
import { MAX_PASSES_CEILING } from '../config/defaults.js';
import type { Io } from '../io.js';
import { sha256 } from '../store/hash.js';
import { lastCompletedPass, type RunManifest } from '../store/manifest.js';
import { RunRecorder } from '../store/recorder.js';
import { manifestProblem } from '../store/resolve-run.js';
import { maxPassesAt, runLocationFlags } from '../store/run-location.js';
import { atMostPasses, lastAcceptedDocument, newRunStep, offeredPasses, offerReason } from '../ui/run-summary.js';
import { ROLES, type Role } from '../vocabulary.js';
import type { ResolvedAgent } from '../contract/contract.js';
import { completePlan, type PlanRequest, requestFromManifest } from './plan-request.js';
import { budgetFromFlags } from './budget-flags.js';
import { intFlag, secondsFlag } from './refine-request.js';
import { withHumanFile } from './human-file.js';

export interface ResumeOptions {
  run: string;
  runsDir?: string;
  out?: string;
  inPlace?: boolean;
  json?: boolean;
  quiet?: boolean;
  config?: string;
  /** `--timeout <seconds>`: a deadline for each call of this session (not part of the run's policy). */
  timeout?: string | number;
  maxCostUsd?: string | number;
  maxTokens?: string | number;
  maxDispatches?: string | number;
  /** `--passes N`: the run's pass budget from now on; with it a converged or not-converged run goes on from its last completed pass. */
  passes?: string | number;
  /** `--reviewer`, `--composer`: another agent for that role from the next pass on. */
  reviewer?: string;
  composer?: string;
  /** `--human-file FILE`: a person's pass (the human agent) is played in FILE instead of an editor. */
  humanFile?: string;
  /** --cache [dir] / --no-cache: the response cache (config `cache`; src/cache/folder.ts). */
  cache?: boolean | string;
}

const RESUMABLE = new Set(['running', 'interrupted', 'failed']);
/** Ended runs that `--passes N` takes further. */
const EXTENDABLE = new Set(['converged', 'not-converged']);

/** Whether a resume with these flags changes the run's plan: passes, agents, or an ended run taken further. */
export function isExtension(m: RunManifest, plan: RunPlan): boolean {
  return !RESUMABLE.has(m.status) || plan.passes !== m.passes.requested || ROLES.some((r) => plan.agents[r].spec !== m.agents[r].spec);
}

/**
 * What differs between the run's policy and today's, in words: the policy fields that changed,
 * else the agents whose adapter or options did (today's config resolves them), else what is
 * left of the version's identity (src/engine/policy.ts).
 */
function policyDifference(m: RunManifest, now: RunManifest['policy'], agents: Record<Role, ResolvedAgent>): string {
  const old = m.policy;
  const keys = Object.keys(old) as (keyof RunManifest['policy'])[];
  const changed = keys.filter((k) => k !== 'version' && JSON.stringify(old[k]) !== JSON.stringify(now[k]));
  if (changed.length) return changed.join(', ');
  // run.json records a cmd agent's command among its options (src/engine/opening.ts).
  const options = (a: ResolvedAgent) => ({ ...a.options, ...(a.adapter === 'cmd' ? { command: a.command } : {}) });
  const roles = ROLES.filter((r) => agents[r].adapter !== m.agents[r].adapter || JSON.stringify(options(agents[r])) !== JSON.stringify(m.agents[r].options));
  if (roles.length === 1) return `the ${roles[0]} agent's options`;
  if (roles.length) return "the reviewer and composer agents' options";
  return 'the agents or their options';
}

/** The sha of the document the run's last completed pass produced, if any. */
function lastDocumentSha(m: RunManifest): string | null {
  return [...m.pass_records].reverse().find((r) => r.status === 'completed' && r.document_sha256)?.document_sha256 ?? null;
}

/** run.json of a run to resume; unreadable is a usage error. */
export function readForResume(runDir: string): RunManifest {
  try {
    return RunRecorder.read(runDir);
  } catch (err) {
    throw usageError(`${runDir}: ${manifestProblem(runDir, err)}`, 'the run cannot be resumed; start a new one with bounce refine', 'resume');
  }
}

/**
 * Resume acts only on a folder that is what its records say (src/store/binding.ts): any
 * problem but what a crash leaves is refused (exit 2) before anything runs or is written.
 * `where` is what the printed commands need to find the run (src/store/run-location.ts).
 * Returns why the run is unbound (made by an older bounce), if it is.
 */
function refuseTampered(m: RunManifest, runDir: string, where: string): string | null {
  const { problems, unbound } = verifyRun(runDir, { resuming: true });
  const first = problems[0];
  if (first) {
    const more = problems.length > 1 ? ` and ${problems.length - 1} more` : '';
    throw usageError(
      `run ${m.run_id} does not match its records: ${first.message} (${first.file})${more}`,
      `it was changed after bounce wrote it, so it is not resumed; bounce audit ${m.run_id}${where} lists every problem, and bounce refine ${m.input.display}${where} starts a new run`,
      'tampered',
    );
  }
  return unbound;
}

export const isResumable = (m: RunManifest): boolean => RESUMABLE.has(m.status);

/**
 * `--passes N` of a resume, within max_passes: more than that is refused with a count that
 * takes this run further (`offer`), not the 2 a refine is offered, which would not.
 */
function passesFlag(value: string | number | undefined, m: RunManifest, max: number, offer: (lead: string) => string): number {
  try {
    return intFlag('--passes', value, m.passes.requested, 1, max);
  } catch (err) {
    if (!isBounceError(err) || !(Number(String(value).trim()) > max)) throw err;
    const raise = max < MAX_PASSES_CEILING ? `, or raise max_passes in ${configInUse()}` : '';
    throw usageError(err.message, `${offer('pass e.g.')}${raise}`, 'usage');
  }
}

/**
 * The hint that takes an ended run further: `lead` and the pass count offered within `max`
 * (config `max_passes`), with why that count; or, when the run has had the most passes it may
 * have, a new run from its last accepted document (`where` finds the run: the new run reads
 * the same config and lands beside it).
 */
function goOn(m: RunManifest, runDir: string, where: string, max: number, cwd: string, lead: string): string {
  const offer = offeredPasses(m, max);
  if (offer) return `${lead} --passes ${offer.passes} (${offerReason(offer)})`;
  const doc = displayPath(join(runDir, lastAcceptedDocument(m)), cwd, 'absolute');
  return `${atMostPasses(max)}: ${newRunStep(m, doc, where, max)} starts a new run from its last accepted document`;
}

/**
 * The plan that continues a recorded run: its request rebuilt from run.json and today's
 * config, the agents checked again. Every refusal is a usage error (exit 2) before any dispatch.
 */
export async function resumePlan(
  manifest: RunManifest,
  runDir: string,
  opts: Omit<ResumeOptions, 'run'>,
  io: Io,
  probe: Probe,
  recorded?: PlanRequest['recorded'],
): Promise<RunPlan> {
  const done = lastCompletedPass(manifest);
  const where = runLocationFlags({ runsDir: dirname(runDir), config: opts.config }, io);
  // The folder is checked first: a run.json edited to say the run ended is refused as edited, not answered as ended.
  const unbound = refuseTampered(manifest, runDir, where);
  if (!RESUMABLE.has(manifest.status) && !(opts.passes !== undefined && EXTENDABLE.has(manifest.status))) {
    const id = manifest.run_id;
    throw usageError(
      `run ${id} is already ${manifest.status}`,
      EXTENDABLE.has(manifest.status)
        ? goOn(
            manifest,
            runDir,
            where,
            maxPassesAt(opts.config, io),
            io.cwd,
            `to go on from its last completed pass, give it more passes: bounce resume ${id}${where}`,
          )
        : 'only interrupted, crashed, failed, not-converged or converged runs can be resumed',
      'resume',
    );
  }
  if (unbound && !opts.quiet) io.stderr.write(`note: run ${manifest.run_id} is ${unbound}; resumed on the word of its run.json\n`);
  const budget = budgetFromFlags(opts);
  const agents = { ...(opts.reviewer !== undefined ? { reviewer: opts.reviewer } : {}), ...(opts.composer !== undefined ? { composer: opts.composer } : {}) };
  const {
    request,
    config,
    recordedAgents: recorded0,
  } = requestFromManifest(manifest, runDir, io, { ...opts, timeoutS: secondsFlag(opts.timeout), budget, agents });
  // The same --human-file as the run was made with puts its human agent's file back (it is part of the policy).
  request.agents = withHumanFile(request.agents, opts.humanFile, io.cwd);
  const recordedAgents =
    opts.humanFile !== undefined && ROLES.some((r) => recorded0[r].adapter === 'human') ? withHumanFile(recorded0, opts.humanFile, io.cwd) : recorded0;
  request.passes = passesFlag(opts.passes, manifest, config.max_passes, (lead) => goOn(manifest, runDir, where, config.max_passes, io.cwd, lead));
  // Without --passes a run that crashed after its last pass is closed as it stands.
  if (opts.passes !== undefined && request.passes <= done)
    throw usageError(
      `--passes ${request.passes} does not take run ${manifest.run_id} further: it has completed ${done} pass${done === 1 ? '' : 'es'}`,
      goOn(manifest, runDir, where, config.max_passes, io.cwd, 'pass more, e.g.'),
      'usage',
    );
  if (request.output.kind === 'stdout' && opts.json) {
    // One stdout cannot carry both the document and the --json object.
    request.output = { kind: 'run' };
    if (!opts.quiet)
      io.stderr.write(
        `note: the run was made with --out -, which cannot share stdout with --json: the converged document goes to its run folder as final.${request.input.ext}\n`,
      );
  }
  // A batch checks its agents once: the later runs take what the first check found.
  if (recorded) request.recorded = recorded;
  const { plan } = await completePlan(request, config, io.env, { checkAgents: !recorded, probe });
  // The run's policy with what the flags change put back: anything else that differs was not asked for.
  const policy = policyOf({ ...plan, passes: manifest.passes.requested, agents: recordedAgents });
  if (policy.version !== manifest.policy.version) {
    const changed = policyDifference(manifest, policy, recordedAgents);
    // Where the run got to: a new run can start from the last completed pass's document.
    const last = [...manifest.pass_records].reverse().find((r) => r.status === 'completed' && r.document);
    const from = last?.document ? displayPath(join(runDir, last.document), io.cwd) : manifest.input.display;
    const restore = changed.includes('templates')
      ? 'put back the prompt templates it was made with (an upgrade of bounce or an edited --prompts folder changes them), or '
      : '';
    throw usageError(
      `run ${manifest.run_id} was made under another policy (${changed} changed)`,
      `the run is kept as it is; ${restore}start a new run from where it got to: ${newRunStep(manifest, from, where, config.max_passes)}`,
      'resume',
    );
  }
  if (plan.output.kind === 'in-place') {
    const path = plan.output.path;
    const now = existsSync(path) ? sha256(readFileSync(path)) : null;
    // The input may already hold the converged document: a crash came after that write.
    if (now !== manifest.input.sha256 && (now === null || now !== lastDocumentSha(manifest))) {
      throw usageError(`${path} changed since the run began`, "an --in-place run is not resumed over someone else's edits; start a new run", 'resume');
    }
  }
  // The recorded output's folder may have become read-only since: found now, not after the passes.
  assertOutputWritable(plan.output);
  return plan;
}
