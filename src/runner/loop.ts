import { writeManifest, type RunStatus } from '../store/manifest.js';
import { runPass } from './pass.js';
import type { RunState } from './state.js';

export interface LoopResult {
  status: Exclude<RunStatus, 'running'>;
  /** The converged document, when there is one. */
  document: string | null;
  notesLeft: number | null;
  error: { type: string; message: string } | null;
}

/**
 * Runs passes from the first one not yet completed to the budget, stopping early on
 * zero notes (unless --all-passes). The manifest is rewritten after every dispatch.
 */
export async function runLoop(state: RunState): Promise<LoopResult> {
  const { plan, manifest } = state;
  const done = manifest.pass_records.filter((r) => r.status === 'completed').length;
  const started = Date.now();
  const baseDuration = manifest.totals.duration_ms;
  let result: LoopResult | null = null;
  // A run that stopped after converging but before it was closed (a crash, say) is done.
  const last = manifest.pass_records.filter((r) => r.status === 'completed').at(-1);
  if (last && last.notes_after === 0 && !plan.allPasses) result = { status: 'converged', document: state.current.text, notesLeft: 0, error: null };
  for (let pass = done + 1; pass <= plan.passes && !result; pass++) {
    const outcome = await runPass(state, pass);
    manifest.totals.duration_ms = baseDuration + (Date.now() - started);
    switch (outcome.kind) {
      case 'accepted':
        state.current = { text: outcome.text, file: outcome.file };
        manifest.passes.run = pass;
        manifest.notes_left = outcome.notes.length;
        state.progress.passFinished(pass, outcome.notes.length, 'done');
        if (outcome.notes.length === 0 && (!plan.allPasses || pass === plan.passes)) {
          result = { status: 'converged', document: outcome.text, notesLeft: 0, error: null };
        }
        break;
      case 'not-converged':
        manifest.passes.run = pass;
        manifest.notes_left = outcome.notes.length;
        state.progress.passFinished(pass, outcome.notes.length, 'not converged');
        result = { status: 'not-converged', document: null, notesLeft: outcome.notes.length, error: { type: 'not-converged', message: outcome.reason } };
        break;
      case 'failed':
        state.progress.passFinished(pass, null, 'failed');
        result = { status: 'failed', document: null, notesLeft: manifest.notes_left, error: { type: outcome.type, message: outcome.message } };
        break;
      case 'interrupted':
        state.progress.passFinished(pass, null, 'interrupted');
        result = {
          status: 'interrupted',
          document: null,
          notesLeft: manifest.notes_left,
          error: { type: 'interrupted', message: 'interrupted by the user; run `bounce resume` to finish it' },
        };
        break;
    }
    writeManifest(state.folder.dir, manifest);
  }
  state.progress.close();
  // Every pass ran and the last one accepted a document: by rule 3 it has no notes.
  return result ?? { status: 'converged', document: state.current.text, notesLeft: 0, error: null };
}
