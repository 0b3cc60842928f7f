/**
 * Check commands in the loop (config `checks:`, --check-cmd; docs/checks.md): what a check's
 * run means for a reply, and what a repair request says of it. Pure: the process is the
 * runner's (EngineDeps.check, src/checks/run-check.ts), the decision the table's (verdict.ts).
 */
import { basename } from 'node:path';
import type { CheckSpec } from '../checks/command.js';
import { FILE_PLACEHOLDER } from '../checks/command.js';
import type { CheckRun } from '../checks/run-check.js';

/** Runs one check with `{file}` standing for `file` (an absolute path in the run folder). */
export type CheckRunner = (check: CheckSpec, file: string) => Promise<CheckRun>;

/** The most characters of one check's output a repair request carries; the file in the run folder keeps it all (within its bound). */
export const CHECK_REPAIR_MAX_CHARS = 4000;

/** A check that failed on a reply, as a repair request quotes it. */
export interface FailedCheck {
  command: string;
  exitCode: number | null;
  /** Its output with the copy's path shown as {file}, cut at CHECK_REPAIR_MAX_CHARS. */
  output: string;
}

/** `check \`cmd\``: how messages name a check. */
export const checkName = (check: Pick<CheckSpec, 'command'>): string => `check \`${check.command}\``;

/** How a run ended, in words: `exit 1`, `a signal`. */
const ending = (exitCode: number | null): string => (exitCode === null ? 'ended by a signal' : `exit ${exitCode}`);

/**
 * The output as the agent is shown it: the path of the document's copy (absolute, or as any
 * path ending in its name) shown as {file}, so no machine path reaches a prompt; then cut to
 * CHECK_REPAIR_MAX_CHARS with a line that says how much was left out.
 */
export function repairOutput(output: string, file: string): string {
  const name = basename(file);
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const shown = output
    .split(file)
    .join(FILE_PLACEHOLDER)
    .replace(new RegExp(`[^\\s"'(\\[]*${escaped}`, 'g'), FILE_PLACEHOLDER)
    .replace(/\0/g, '')
    .trimEnd();
  if (shown.length <= CHECK_REPAIR_MAX_CHARS) return shown;
  const cut = shown.slice(0, CHECK_REPAIR_MAX_CHARS);
  return `${cut.slice(0, Math.max(cut.lastIndexOf('\n'), 0) || CHECK_REPAIR_MAX_CHARS)}\n[${shown.length - CHECK_REPAIR_MAX_CHARS} more characters of output left out]`;
}

/** The reason of a check repair (recorded as the dispatch's repair_error): which checks failed, never their output (that goes in its own frame). */
export function checkRepairReason(failed: readonly FailedCheck[]): string {
  const which = failed.map((f) => `${checkName(f)} (${ending(f.exitCode)})`).join(', ');
  return `the document your reply produced fails ${which}: correct what the check output quoted below reports, keep every note and every other change of your reply, and change nothing else`;
}

/** Why in a few words, for a progress line. */
export function checkRepairSummary(failed: readonly FailedCheck[]): string {
  return failed.length === 1 ? `${checkName(failed[0] as FailedCheck)} failed` : `${failed.length} checks failed`;
}

/** Why a final pass did not converge when its document still fails checks after its repairs. */
export function finalCheckReason(failed: readonly FailedCheck[], repairs: number): string {
  const which = failed.map((f) => `${checkName(f)} (${ending(f.exitCode)})`).join(', ');
  return `the final pass's document still fails ${which} after ${repairs} repair${repairs === 1 ? '' : 's'}; its output is in the run folder (bounce show)`;
}

/** Why a run stops at a check that did not run to its end: it could not start, or ran out of time. */
export function checkErrorMessage(check: CheckSpec, run: Pick<CheckRun, 'status' | 'output'>): string {
  if (run.status === 'timed-out')
    return `${checkName(check)} ran out of its ${check.timeout_s} s time limit and was killed: make it finish sooner, or give it longer with timeout_s in checks: (a new run takes it)`;
  return `${checkName(check)} could not start: ${run.output.trim()}: install the program or fix the command`;
}
