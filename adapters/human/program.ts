#!/usr/bin/env node
/**
 * The human adapter: a person plays the pass (docs/human.md). The pass's document opens in
 * `$VISUAL` (else `$EDITOR`) on the terminal bounce runs on, and what the person saves is the
 * pass's reply; with a file (`--human-file FILE`, the `script` option) the document is written
 * there and the reply is the file once it is saved again, whoever saves it. A person has no
 * price and no model family. Without a terminal (CI set, stdin not a TTY) and without a file
 * the adapter refuses, in its check and in a dispatch.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AdapterContext, type AdapterProgram, type CheckContext, isMain, runAdapter } from '../../src/kit/adapter-kit.js';
import { fail } from '../../src/kit/outcome.js';
import { documentIn } from '../../src/kit/prompt-document.js';
import { HUMAN_VERSION, personReply } from '../../src/kit/person-reply.js';
import type { AdapterRequest, AdapterResponse, AgentOptions, CheckProblem, CheckResult } from '../../src/contract/contract.js';

/** How often a --human-file is looked at while bounce waits for it to be saved. */
export const POLL_MS = 200;

/** The editor a person's pass opens: $VISUAL, else $EDITOR; null when neither is set. */
export function editorOf(env: NodeJS.ProcessEnv): string | null {
  return env.VISUAL?.trim() || env.EDITOR?.trim() || null;
}

/** Whether a CI variable says no one is at the terminal (`CI=true`, `CI=1`; not `false` or `0`). */
const inCi = (env: NodeJS.ProcessEnv): boolean => Boolean(env.CI) && !['false', '0'].includes(String(env.CI).toLowerCase());

/** Why the pass cannot be given to a person here, or null when it can: a file, or a terminal with an editor. */
export function humanProblem(options: AgentOptions, env: NodeJS.ProcessEnv, terminal: { isTTY?: boolean }): CheckProblem | null {
  if (options.script) return null;
  const fix = 'run bounce on a terminal, or pass --human-file FILE and save the document there';
  if (inCi(env)) return { kind: 'config', message: `the human agent opens an editor on a terminal, and CI=${env.CI} says there is none`, fix };
  if (!terminal.isTTY) return { kind: 'config', message: 'the human agent opens an editor on a terminal, and stdin is not one', fix };
  if (!editorOf(env))
    return {
      kind: 'config',
      message: 'the human agent opens $VISUAL or $EDITOR, and neither is set',
      fix: 'set one (export EDITOR=nano), or pass --human-file FILE',
    };
  return null;
}

/** What the person is asked to do on this pass, in one line (the role's instructions are the prompt's; the person gets their gist). */
export function instructions(req: Pick<AdapterRequest, 'pass' | 'total_passes' | 'role' | 'final' | 'repair_error'>): string {
  const task = req.final
    ? 'resolve every note (settle it in the text and delete it) and add none'
    : req.role === 'reviewer'
      ? 'edit the text, and write each disagreement as a note on its own line below the text it concerns ([CONTESTED] with your alternative, [CLARIFY] with two readings)'
      : 'resolve the notes: settle each one in the text and delete it';
  const repair = req.repair_error ? `; your last edit was sent back: ${req.repair_error.replace(/\s+/g, ' ').trim()}` : '';
  return `pass ${req.pass} of ${req.total_passes}, you are the ${req.role}${req.final ? ' (final pass)' : ''}: ${task}${repair}`;
}

/** Runs the editor on `file` with the terminal as its stdio; resolves with its exit code (null: killed), or rejects when it cannot start. */
function runEditor(editor: string, file: string, env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<number | null> {
  return new Promise((resolve, reject) => {
    // The editor setting is a command line (`code --wait`, `vim -n`): a shell reads it, the file goes as "$1".
    const child =
      process.platform === 'win32'
        ? spawn(`${editor} "${file}"`, { shell: true, stdio: 'inherit', env })
        : spawn('/bin/sh', ['-c', `${editor} "$1"`, 'bounce-editor', file], { stdio: 'inherit', env });
    const stop = (): void => void child.kill('SIGTERM');
    signal.addEventListener('abort', stop, { once: true });
    child.on('error', (err) => {
      signal.removeEventListener('abort', stop);
      reject(err);
    });
    child.on('exit', (code) => {
      signal.removeEventListener('abort', stop);
      resolve(code);
    });
  });
}

/** The document edited in the person's editor, from a temporary file removed afterwards. */
async function inEditor(req: AdapterRequest, doc: string, ctx: AdapterContext): Promise<AdapterResponse> {
  const problem = humanProblem(req.options, ctx.env, process.stdin);
  if (problem) return fail('config', `${problem.message}: ${problem.fix}`);
  const editor = editorOf(ctx.env) as string;
  const dir = mkdtempSync(join(tmpdir(), 'bounce-human-'));
  const file = join(dir, `pass-${req.pass}.md`);
  try {
    writeFileSync(file, `${doc}\n`);
    process.stderr.write(`bounce: ${instructions(req)}; save and quit ${editor} to send the document\n`);
    let code: number | null;
    try {
      code = await runEditor(editor, file, ctx.env, ctx.signal);
    } catch (err) {
      return fail(
        'config',
        `the editor ${editor} could not start: ${err instanceof Error ? err.message : String(err)}; set $VISUAL or $EDITOR to an editor on PATH`,
      );
    }
    if (ctx.signal.aborted) return fail('timeout', 'the pass ended before the editor was closed');
    if (code !== 0)
      return fail('config', `the editor ${editor} exited with ${code === null ? 'a signal' : `code ${code}`}: nothing was sent; run the pass again`);
    return personReply(readFileSync(file, 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Resolves after `ms`, or false as soon as the signal aborts. */
function tick(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve(!signal.aborted);
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

const stamp = (file: string): string | null => {
  try {
    const s = statSync(file);
    return `${s.mtimeMs}:${s.size}`;
  } catch {
    return null;
  }
};

/**
 * The document written to the person's file; the reply is the file once it has been saved
 * again (its time or size changed) and then stood still for one look, so a save still being
 * written is not read half-way.
 */
async function inFile(req: AdapterRequest, doc: string, file: string, ctx: AdapterContext): Promise<AdapterResponse> {
  try {
    writeFileSync(file, `${doc}\n`);
  } catch (err) {
    return fail(
      'config',
      `cannot write the document to ${file}: ${err instanceof Error ? err.message : String(err)}; pass a --human-file in a writable folder`,
    );
  }
  const written = stamp(file);
  process.stderr.write(`bounce: ${instructions(req)}; the document is in ${file}: edit it and save it to send it\n`);
  let seen = written;
  for (;;) {
    if (!(await tick(POLL_MS, ctx.signal))) return fail('timeout', `the pass ended before ${file} was saved`);
    const now = stamp(file);
    if (now !== null && now !== written && now === seen) return personReply(readFileSync(file, 'utf8'));
    seen = now;
  }
}

export async function dispatch(req: AdapterRequest, ctx: AdapterContext): Promise<AdapterResponse> {
  const doc = documentIn(req.prompt);
  return req.options.script ? inFile(req, doc, req.options.script, ctx) : inEditor(req, doc, ctx);
}

export async function check(options: AgentOptions, ctx: CheckContext): Promise<CheckResult> {
  const problem = humanProblem(options, ctx.env, process.stdin);
  const resolved = { file: options.script ?? null, editor: options.script ? null : editorOf(ctx.env) };
  return { ok: problem === null, version: HUMAN_VERSION, problems: problem ? [problem] : [], warnings: [], resolved };
}

export const adapter: AdapterProgram = { dispatch, check };

if (isMain(import.meta.url)) void runAdapter(adapter);
