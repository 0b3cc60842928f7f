import { CONTRACT_VERSION } from '../contract/contract.js';
import { sha256 } from '../store/hash.js';
import type { RunManifest } from '../store/manifest.js';
import type { RunPlan } from './plan.js';
import { templatesHash } from './prompt.js';

/**
 * The policy a run was made under. Its version is a hash of everything that changes what
 * the agents are asked or what the runner accepts; a run can only be resumed under the
 * same policy.
 */
export function policyOf(plan: RunPlan): RunManifest['policy'] {
  const body = {
    contract_version: CONTRACT_VERSION,
    templates_sha256: templatesHash(plan.templates),
    prompts_dir: plan.promptsDir,
    markers: plan.markers,
    max_repairs: plan.maxRepairs,
    summary_ratio: plan.summaryRatio,
    summary_min_words: plan.summaryMinWords,
    max_bytes: plan.maxBytes,
    reply_mode: plan.replyMode,
    // Only when it changes behaviour: the version of a run made before it existed stays the same.
    ...(plan.dismissals && plan.dismissals !== 'allow' ? { dismissals: plan.dismissals } : {}),
    // The reviewer passes' lenses, whole: a resume gives the same passes the same instructions.
    ...(plan.lenses.length === 0 ? {} : { lenses: plan.lenses.map(({ name, text }) => ({ name, text })) }),
    // Who plays which pass: the agents swap roles every two passes.
    ...(plan.alternate ? { alternate: true as const } : {}),
    // What every reply must pass, and the final pass's to converge: only when there are checks, so other runs keep their version.
    ...(plan.checks?.length ? { checks: plan.checks.map(({ command, timeout_s }) => ({ command, timeout_s })) } : {}),
  };
  const identity = {
    ...body,
    // Only when on, so the version of a run made before lint existed is unchanged.
    ...(plan.lint === 'off' ? {} : { lint: plan.lint }),
    // What the agents are told the document is for, and the reference they are given (by content).
    ...(plan.goal === null ? {} : { goal: plan.goal }),
    ...(plan.context.files.length === 0 ? {} : { context: plan.context.files.map((f) => [f.source, f.sha256]) }),
    passes: plan.passes,
    all_passes: plan.allPasses,
    agents: Object.fromEntries(
      Object.entries(plan.agents).map(([role, a]) => [
        role,
        { spec: a.spec, adapter: a.adapter, command: a.adapter === 'cmd' ? a.command : null, options: a.options },
      ]),
    ),
  };
  return { version: sha256(JSON.stringify(identity)).slice(0, 16), ...body, lint: plan.lint };
}
