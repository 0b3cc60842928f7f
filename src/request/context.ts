import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { GOAL_MAX_CHARS } from '../config/schema.js';
import { displayPath, globFiles, isGlob, pathKind, walk } from '../documents.js';
import { usageError } from '../errors.js';
import { configInUse } from '../config/in-use.js';
import { contextText } from '../engine/context-frames.js';
import type { ContextFile, RunPlan } from '../engine/plan.js';
import { countLines } from '../text/lines.js';
import { sha256 } from '../store/hash.js';
import type { ContextEntry } from '../store/manifest.js';
import { decodeText, readUserFile } from '../text-input.js';
import type { CheckProblem } from '../contract/contract.js';
import { redactCounting } from '../redact.js';

/** A reference file read for a run, before the run folder names its copy. */
export type ContextSource = Omit<ContextFile, 'file'> & {
  /** Absolute path when read from disk (so a document is never its own context); null for a copy read back on resume. */
  path: string | null;
};

/**
 * The goal from `--goal`, `--goal-file` (relative to the working directory) or config `goal`,
 * trimmed, with LF line endings; null when none is given.
 */
export function readGoal(flags: { goal?: string; goalFile?: string }, configGoal: string | undefined, cwd: string): string | null {
  if (flags.goal !== undefined && flags.goalFile !== undefined) throw usageError('--goal and --goal-file both give the goal', 'pass one of them', 'usage');
  let text: string | undefined = flags.goal;
  let what = '--goal';
  if (flags.goalFile !== undefined) {
    what = `--goal-file ${flags.goalFile}`;
    // Read a little past the longest goal in UTF-8 (and a BOM): a longer file is refused below, by its characters.
    const { bytes } = readUserFile(resolve(cwd, flags.goalFile), what, GOAL_MAX_CHARS * 4 + 3, 'usage', {
      missing: () => usageError(`${what}: no such file`, 'check the path to the goal file', 'usage'),
      directory: () => usageError(`${what} is a folder`, 'name a text file holding the goal', 'usage'),
    });
    text = decodeText(bytes, flags.goalFile);
  }
  if (text === undefined) return configGoal === undefined ? null : normalise(configGoal);
  const goal = normalise(text);
  if (goal === '') throw usageError(`${what} is empty`, 'say what the document is for and what the refinement should aim at', 'usage');
  if (goal.length > GOAL_MAX_CHARS)
    throw usageError(
      `${what} is ${goal.length} characters, over the ${GOAL_MAX_CHARS}-character limit`,
      'shorten it, and pass long reference material with --context',
      'usage',
    );
  return goal;
}

const normalise = (text: string): string =>
  text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .trim();

/**
 * The files that context patterns name (files, folders, globs; `base` is where relative
 * ones start: the working directory for --context, the config file's folder for config
 * `context`), in order, each once. A file named outright must be UTF-8 text; a folder or
 * glob skips binary and empty files. Over `budget` bytes in all is a usage error.
 */
export async function readContext(patterns: readonly string[], base: string, cwd: string, budget: number): Promise<ContextSource[]> {
  const paths: { path: string; named: boolean }[] = [];
  const seen = new Set<string>();
  const add = (path: string, named: boolean): void => {
    if (!seen.has(path)) paths.push({ path, named });
    seen.add(path);
  };
  for (const pattern of patterns) {
    const abs = resolve(base, pattern);
    const kind = await pathKind(abs, `--context ${pattern}`);
    if (kind === 'file') add(abs, true);
    else if (kind === 'dir')
      for (const rel of await walk(
        abs,
        '',
        () => true,
        (path) => displayPath(path, cwd, 'absolute'),
        '--context: ',
      ))
        add(join(abs, rel), false);
    else if (await isGlob(pattern)) {
      const found = await globFiles(pattern, base, (path) => displayPath(path, cwd, 'absolute'), '--context: ');
      if (found.length === 0) throw usageError(`--context: no files match ${pattern}`, 'check the pattern (quote it so the shell leaves it alone)', 'usage');
      for (const rel of found) add(resolve(base, rel), false);
    } else throw usageError(`--context: no such file or folder: ${pattern}`, 'check the path', 'usage');
  }
  // Sizes first: a folder far over the budget is refused before it is read (a file gone since it was listed is named by its read).
  const sizes = await Promise.all(
    paths.map((p) =>
      stat(p.path).then(
        (s) => s.size,
        () => 0,
      ),
    ),
  );
  const total = sizes.reduce((n, s) => n + s, 0);
  if (total > budget) throw overBudget(paths.length, total, budget);
  const out: ContextSource[] = [];
  // What is read counts, not what stat said: a device or a file of /proc says 0.
  let read = 0;
  for (const { path, named } of paths) {
    const source = displayPath(path, cwd);
    // In a message, a file outside the working folder goes by its absolute path ("/dev/zero", not "../../dev/zero").
    const label = `--context ${displayPath(path, cwd, 'absolute')}`;
    const bytes = readUserFile(path, label, budget - read, 'usage').bytes;
    read += bytes.length;
    if (read > budget) throw overBudget(paths.length, null, budget);
    let text: string;
    try {
      text = decodeText(bytes, label);
    } catch (err) {
      if (named) throw err;
      continue; // a binary file inside a folder or glob is not reference text
    }
    if (!named && text.trim() === '') continue;
    out.push(sourceOf(path, source, text));
  }
  return out;
}

function sourceOf(path: string | null, source: string, raw: string): ContextSource {
  const text = contextText(raw);
  return { path, source, text, sha256: sha256(text), bytes: Buffer.byteLength(text), lines: countLines(text) };
}

/**
 * The sources with every key value of the run's agents blanked out (REDACTED), and the
 * warnings that say which held one. Context is reference material: no agent needs a key
 * from it, and a blanked copy is what the prompts, the run folder and a resume then see.
 */
export function blankContextSecrets(sources: readonly ContextSource[], secrets: readonly string[]): { sources: ContextSource[]; warnings: CheckProblem[] } {
  const warnings: CheckProblem[] = [];
  const out = sources.map((s) => {
    const r = redactCounting(s.text, secrets);
    if (r.count === 0) return s;
    warnings.push({
      kind: 'config',
      message: `context file ${s.source} holds a key value of this run's agents (${r.count} time${r.count === 1 ? '' : 's'}): it is blanked out of what the agents are sent and of the run folder`,
      fix: 'keep key values out of the files given as --context',
    });
    return { ...sourceOf(s.path, s.source, r.text) };
  });
  return { sources: out, warnings };
}

/** `total` null: more than `budget`, found by reading (files of /proc have no size before). */
function overBudget(files: number, total: number | null, budget: number): Error {
  return usageError(
    `--context names ${files} file${files === 1 ? '' : 's'} of ${total ?? `more than ${budget}`} bytes in all, over the ${budget}-byte context budget`,
    `narrow --context (each prompt carries every context file), or raise context_max_bytes in ${configInUse()}`,
    'usage',
  );
}

/** The context of one document: every source but the document itself, within the budget. */
export function contextForDocument(sources: readonly ContextSource[], input: RunPlan['input'], budget: number): ContextSource[] {
  const kept = sources.filter((s) => s.path === null || s.path !== input.path);
  const total = kept.reduce((n, s) => n + s.bytes, 0);
  if (total > budget) throw overBudget(kept.length, total, budget);
  return kept;
}

/** The run folder's name for each context file's copy: `context/<n>-<file name>`. */
export function contextFiles(sources: readonly ContextSource[]): ContextFile[] {
  return sources.map((s, i) => ({
    source: s.source,
    text: s.text,
    sha256: s.sha256,
    bytes: s.bytes,
    lines: s.lines,
    file: `context/${i + 1}-${basename(s.source) || 'file'}`,
  }));
}

/**
 * A recorded run's context, read back from the copies its run folder keeps (what the run was
 * asked with, whatever became of the files since). A copy that changed is refused.
 */
export function recordedContext(entries: readonly ContextEntry[], runDir: string, runId: string): ContextSource[] {
  return entries.map((e) => {
    let text: string;
    try {
      text = readFileSync(join(runDir, e.file), 'utf8');
    } catch {
      throw usageError(
        `run ${runId} lacks its copy of context file ${e.source} (${e.file})`,
        'the run cannot be resumed; start a new one with bounce refine',
        'resume',
      );
    }
    const read = sourceOf(null, e.source, text);
    if (read.sha256 !== e.sha256)
      throw usageError(
        `run ${runId}'s copy of context file ${e.source} (${e.file}) changed since the run began`,
        'the run is kept as it is; start a new run with bounce refine',
        'resume',
      );
    return read;
  });
}
