import { EXIT } from '../errors.js';
import type { Io } from '../io.js';
import { createAuditTrail } from '../audit/records.js';
import { runLoop } from '../runner/loop.js';
import { finishRun, type RefineJson } from '../runner/finish.js';
import { createProgress } from '../runner/progress.js';
import { buildPassPrompt } from '../runner/prompt.js';
import { startRun } from '../runner/start.js';
import { acquireLock } from '../store/lock.js';
import type { RunPlan } from '../runner/plan.js';
import { buildPlan, type RefineOptions } from './refine-plan.js';

export type { RefineOptions } from './refine-plan.js';

/** `bounce refine <doc|->`: validate, snapshot, run the passes, write the output. */
export async function runRefine(opts: RefineOptions, io: Io): Promise<number> {
  // A problem found here throws: src/cli.ts prints it (and the --json error object).
  const { plan, warnings } = await buildPlan(opts, io, { checkAgents: !opts.dryRun });
  // A login that cannot be verified offline is for `bounce check`; on every run it would only be noise.
  if (!opts.quiet)
    for (const w of warnings.filter((x) => x.kind !== 'login_unverified')) io.stderr.write(`warning: ${w.fix ? `${w.message}: ${w.fix}` : w.message}\n`);
  if (opts.dryRun) return dryRun(plan, opts, io);
  // Ctrl-C while agents were being checked: nothing was started, so nothing is left behind.
  if (io.signal.aborted) {
    if (opts.json) io.stdout.write(`${JSON.stringify(errorJson(EXIT.interrupted, 'interrupted', 'interrupted before the run started'))}\n`);
    return EXIT.interrupted;
  }
  if (!opts.quiet) {
    const a = plan.agents;
    io.stderr.write(`reviewer: ${a.reviewer.spec} (${plan.chosenBy.reviewer}), composer: ${a.composer.spec} (${plan.chosenBy.composer})\n`);
  }
  const { folder, manifest } = startRun(plan);
  const state = {
    plan,
    folder,
    manifest,
    hooks: createAuditTrail(folder.dir),
    io,
    progress: createProgress(io, Boolean(opts.quiet)),
    current: { text: plan.input.text, file: manifest.original },
    retryBaseMs: Number(io.env.BOUNCE_RETRY_BASE_MS) || 1000,
  };
  const release = acquireLock(folder.dir);
  try {
    const result = await runLoop(state);
    return finishRun(state, result, opts).exitCode;
  } finally {
    release();
  }
}

export function errorJson(exitCode: number, type: string, message: string): RefineJson {
  return {
    run_id: null,
    run_dir: null,
    status: 'error',
    exit_code: exitCode,
    notes_left: null,
    output: null,
    passes_run: 0,
    passes: [],
    duration_ms: 0,
    usage: { input_tokens: null, output_tokens: null },
    cost_usd: null,
    evidence: null,
    error: { type, message },
  };
}

function dryRun(plan: RunPlan, opts: RefineOptions, io: Io): number {
  const { prompt } = buildPassPrompt(plan.templates, {
    document: plan.input.text,
    pass: 1,
    totalPasses: plan.passes,
    role: 'reviewer',
    final: plan.passes === 1,
    markers: plan.markers,
  });
  const summary = {
    dry_run: true,
    input: { path: plan.input.path, display: plan.input.display, bytes: plan.input.bytes, syntax: plan.input.syntax },
    passes: plan.passes,
    all_passes: plan.allPasses,
    schedule: Array.from({ length: plan.passes }, (_, i) => ({
      pass: i + 1,
      role: i % 2 === 0 ? 'reviewer' : 'composer',
      agent: (i % 2 === 0 ? plan.agents.reviewer : plan.agents.composer).spec,
      final: i + 1 === plan.passes,
    })),
    agents: Object.fromEntries(
      Object.entries(plan.agents).map(([role, a]) => [
        role,
        {
          spec: a.spec,
          adapter: a.adapter,
          options: a.options,
          timeout_s: plan.timeoutMs[role as 'reviewer'] / 1000,
          chosen_by: plan.chosenBy[role as 'reviewer'],
        },
      ]),
    ),
    markers: plan.markers,
    max_repairs: plan.maxRepairs,
    output: plan.output,
    runs_dir: plan.runsDir,
    prompts_dir: plan.promptsDir,
  };
  if (opts.json) {
    io.stdout.write(`${JSON.stringify({ ...summary, first_prompt: prompt })}\n`);
    return EXIT.ok;
  }
  const lines = [
    `plan: ${plan.input.display} (${plan.input.bytes} bytes, ${plan.input.syntax}), ${plan.passes} pass${plan.passes === 1 ? '' : 'es'}${plan.allPasses ? ', all passes' : ''}`,
    ...summary.schedule.map((s) => `  pass ${s.pass}: ${s.role} ${s.agent}${s.final ? ' (final)' : ''}`),
    `markers: ${plan.markers.join(', ')}; max repairs per pass: ${plan.maxRepairs}`,
    `output: ${plan.output.kind}${'path' in plan.output ? ` ${plan.output.path}` : ''}; runs dir: ${plan.runsDir}`,
    `--- first prompt (pass 1, ${plan.agents.reviewer.spec}) ---`,
    prompt,
  ];
  io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}
