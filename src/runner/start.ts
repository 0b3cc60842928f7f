import type { Role } from '../adapters/contract.js';
import { VERSION } from '../version.js';
import { writeManifest, type AgentRecord, type RunManifest } from '../store/manifest.js';
import { createRunFolder, makeRunId, RunFolder } from '../store/run-folder.js';
import { scanNotes } from '../protocol/scanner.js';
import { countWords } from './reply.js';
import type { RunPlan } from './plan.js';
import { policyOf } from './policy.js';
import { emptyTotals } from './state.js';

function agentRecord(plan: RunPlan, role: Role): AgentRecord {
  const a = plan.agents[role];
  return {
    spec: a.spec,
    adapter: a.adapter,
    provider: a.provider,
    model: a.options.model ?? (typeof plan.resolved[role].model === 'string' ? (plan.resolved[role].model as string) : null),
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

function evidenceOf(plan: RunPlan): RunManifest['evidence'] {
  const kinds = new Set([plan.agents.reviewer.evidence, ...(plan.passes > 1 ? [plan.agents.composer.evidence] : [])]);
  return kinds.size === 1 ? [...kinds][0]! : 'mixed';
}

/** Creates the run folder, snapshots the input and writes the first run.json. */
export function startRun(plan: RunPlan, now = new Date()): { folder: RunFolder; manifest: RunManifest } {
  const runId = makeRunId(plan.name, now, undefined, false);
  const folder = new RunFolder(createRunFolder(plan.runsDir, runId));
  const original = `original.${plan.input.ext}`;
  folder.write(original, plan.input.text);
  const stamp = now.toISOString();
  const manifest: RunManifest = {
    schema_version: 1,
    run_id: runId,
    tool: { name: 'bounce', version: VERSION },
    created_at: stamp,
    updated_at: stamp,
    finished_at: null,
    status: 'running',
    exit_code: null,
    input: {
      path: plan.input.path,
      display: plan.input.display,
      sha256: plan.input.sha256,
      bytes: plan.input.bytes,
      words: countWords(plan.input.text),
      ext: plan.input.ext,
      syntax: plan.input.syntax,
      notes: scanNotes(plan.input.text, { syntax: plan.input.syntax, markers: plan.markers }).length,
    },
    original,
    output: { target: plan.output.kind, path: 'path' in plan.output ? plan.output.path : null, written: false, sha256: null },
    passes: { requested: plan.passes, run: 0, all_passes: plan.allPasses },
    agents: { reviewer: agentRecord(plan, 'reviewer'), composer: agentRecord(plan, 'composer') },
    evidence: evidenceOf(plan),
    policy: policyOf(plan),
    pass_records: [],
    totals: { ...emptyTotals(), duration_ms: 0, dispatches: 0 },
    breaker: { consecutive_failures: 0, open: false, last_error: null },
    notes_left: null,
    error: null,
  };
  writeManifest(folder.dir, manifest);
  folder.log(
    `run ${runId} started: ${plan.input.display}, ${plan.passes} passes, reviewer ${plan.agents.reviewer.spec}, composer ${plan.agents.composer.spec}`,
  );
  return { folder, manifest };
}
