import type { AgentRecord, RunManifest } from '../store/manifest.js';
import type { RunOpening } from '../store/recorder.js';
import { makeRunId } from '../store/run-folder.js';
import type { Role } from '../vocabulary.js';
import { scan } from './pass.js';
import type { RunPlan } from './plan.js';
import { policyOf } from './policy.js';
import { countWords } from '../text/words.js';
import { plural } from '../plural.js';

export function agentRecord(plan: RunPlan, role: Role): AgentRecord {
  const a = plan.agents[role];
  const resolvedModel = plan.resolved[role].model;
  return {
    spec: a.spec,
    adapter: a.adapter,
    provider: a.provider,
    model: a.options.model ?? (typeof resolvedModel === 'string' ? resolvedModel : null),
    version: plan.agentVersions[role],
    max_output_tokens: plan.maxOutputTokens[role],
    timeout_s: plan.timeoutMs[role] / 1000,
    evidence: a.evidence,
    usage_provider_reported: null,
    options: { ...a.options, ...(a.adapter === 'cmd' ? { command: a.command } : {}) },
    chosen_by: plan.chosenBy[role],
    resolved: plan.resolved[role],
  };
}

export function evidenceOf(plan: RunPlan): RunManifest['evidence'] {
  const kinds = new Set([plan.agents.reviewer.evidence, ...(plan.passes > 1 ? [plan.agents.composer.evidence] : [])]);
  return kinds.size === 1 ? [...kinds][0]! : 'mixed';
}

/** What run.json says of a new run before pass 1. */
export function openingOf(plan: RunPlan, now: Date, inputNotes: number = scan(plan, plan.input.text).length): RunOpening {
  const runId = makeRunId(plan.name, now, undefined, false);
  return {
    run_id: runId,
    batch_id: plan.batchId ?? null,
    createdAt: now,
    input: {
      path: plan.input.path,
      display: plan.input.display,
      sha256: plan.input.sha256,
      bytes: plan.input.bytes,
      words: countWords(plan.input.text),
      ext: plan.input.ext,
      syntax: plan.input.syntax,
      notes: inputNotes,
    },
    original: `original.${plan.input.ext}`,
    originalText: plan.input.text,
    goal: plan.goal,
    context: plan.context.files.map(({ source, file, sha256, bytes, lines }) => ({ source, file, sha256, bytes, lines })),
    contextTexts: plan.context.files.map(({ file, text }) => ({ file, text })),
    output: { target: plan.output.kind, path: 'path' in plan.output ? plan.output.path : null },
    passes: { requested: plan.passes, run: 0, all_passes: plan.allPasses },
    agents: { reviewer: agentRecord(plan, 'reviewer'), composer: agentRecord(plan, 'composer') },
    evidence: evidenceOf(plan),
    policy: policyOf(plan),
    ...(plan.replayOf ? { replay_of: plan.replayOf } : {}),
    logLine: `run ${runId} started${plan.replayOf ? ` as a replay of ${plan.replayOf}` : ''}: ${plan.input.display}, ${plural(plan.passes, 'pass', 'passes')}, reviewer ${plan.agents.reviewer.spec}, composer ${plan.agents.composer.spec}`,
  };
}
