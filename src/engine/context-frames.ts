/**
 * Reference material in a prompt (--context): each file between two delimiter lines that
 * carry one nonce for the whole run, drawn so that no context file and not the input
 * document holds either line; a file cannot end its frame early or forge another. The nonce
 * stays the same from pass to pass so the prompt's prefix does too (a provider's prompt cache
 * reuses it); the document keeps its own frame with a fresh nonce per prompt (prompt.ts).
 */
import { randomBytes } from 'node:crypto';

export interface ContextFrame {
  /** The path as the run shows it (relative to where bounce ran, forward slashes). */
  source: string;
  /** The text as sent: BOM stripped, LF line endings. */
  text: string;
  lines: number;
}

export interface ContextFrames {
  nonce: string;
  files: readonly ContextFrame[];
}

export const contextOpen = (nonce: string, source: string, lines: number): string =>
  `<<<BOUNCE-CONTEXT-${nonce} file=${JSON.stringify(source)} lines=${lines}>>>`;
export const contextClose = (nonce: string): string => `<<<END-BOUNCE-CONTEXT-${nonce}>>>`;

const CONTEXT_INTRO =
  'Reference material: read-only files given to ground this refinement (the code the document describes, a spec it must agree with). Check the document against them. Never edit them and never copy them into your reply: only the document is yours to change. Each file is between its own two delimiter lines, which no file can contain.';

/** A context file as the prompt carries it: no BOM, LF line endings (as promptDocument does for the document). */
export function contextText(text: string): string {
  return text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
}

const newNonce = (): string => randomBytes(6).toString('hex');

/** A nonce whose delimiter lines occur in none of `texts`: `BOUNCE-CONTEXT-<nonce>` is searched for, which both lines contain. */
export function makeContextNonce(texts: readonly string[], random: () => string = newNonce): string {
  for (let attempt = 0; attempt < 100; attempt++) {
    const nonce = random();
    const mark = `BOUNCE-CONTEXT-${nonce}`;
    if (texts.every((t) => !t.includes(mark))) return nonce;
  }
  throw new Error('could not draw a context nonce absent from the context files');
}

/** The {{context}} value: the introduction, then each file in its frame. */
export function renderContext(c: ContextFrames): string {
  const frames = c.files.map(
    (f) => `${contextOpen(c.nonce, f.source, f.lines)}\n${f.text}${f.text.endsWith('\n') || f.text === '' ? '' : '\n'}${contextClose(c.nonce)}`,
  );
  return [CONTEXT_INTRO, ...frames].join('\n\n');
}
