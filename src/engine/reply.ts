import { usageError } from '../errors.js';
import type { EditFormat } from '../vocabulary.js';
import { applyEditBlocks, type EditReport, parseEditReply } from '../text/edit-blocks.js';
import { withoutBom } from '../text/lines.js';
import { countWords } from '../text/words.js';
import type { Delimiters } from './prompt.js';
import { plural } from '../plural.js';

/**
 * Every agent reply passes through here before it becomes the next document.
 * A ReplyMode turns a raw reply into a document or a rejection; `document` mode
 * expects the whole revised document. Other modes (edit blocks) plug in beside it.
 */
export interface ReplyContext {
  /**
   * The document the agent was asked to revise, as sent (promptDocument()). For a repair,
   * pass the pass's document, not the rejected reply, so a summary cannot repair into a summary.
   */
  sent: string;
  /** The run's original input: source of BOM, line-ending style and final-newline state. */
  original: string;
  delimiters: Delimiters;
  /** A reply over this many UTF-8 bytes is malformed. */
  maxBytes: number;
  summaryRatio: number;
  /** The summary check applies only when `sent` has more words than this. */
  summaryMinWords: number;
  /** countWords(sent), when the caller knows it already. */
  sentWords?: number;
}

export type RejectKind = 'empty' | 'summary' | 'malformed';
export type ReplyRejection = { ok: false; kind: RejectKind; reason: string };
/** `edits`: what an edit reply did, block by block (edit mode only); with failures, `document` holds the blocks that applied. */
export type ReplyVerdict = { ok: true; document: string; fixes: string[]; words: number; edits?: EditReport } | ReplyRejection;

export interface ReplyMode {
  readonly name: string;
  /** What the prompt asks the reply to be (prompts/whole.md or prompts/edits.md). */
  readonly editFormat: EditFormat;
  accept(reply: string, ctx: ReplyContext): ReplyVerdict;
}

export { countWords } from '../text/words.js';

/**
 * The most UTF-8 bytes an edit reply may have: 4 × `max_bytes` + 64 KiB. Blocks that rewrite
 * every line carry the document twice (search and replace) plus their marker lines, so one
 * `max_bytes` would refuse a legitimate rewrite of a large document; the document the blocks
 * leave is still held to `max_bytes`. The 64 KiB is room for the markers of a small document
 * (docs/prompts.md, "What happens to a reply").
 */
export const editReplyLimit = (maxBytes: number): number => 4 * maxBytes + 65_536;

/** The checks every mode shares: empty, NUL bytes, size (at most `limit` UTF-8 bytes, `max_bytes` unless the mode says more). */
export function precheck(reply: string, ctx: Pick<ReplyContext, 'maxBytes'>, limit = ctx.maxBytes): ReplyRejection | undefined {
  if (withoutBom(reply).trim() === '') return reject('empty', 'The reply was empty.');
  if (reply.includes('\0')) return reject('malformed', 'The reply contains NUL bytes, so it is not a text document.');
  const bytes = Buffer.byteLength(reply, 'utf8');
  if (bytes > limit) return reject('malformed', `The reply is ${bytes} bytes, over the ${limit}-byte limit.`);
  return undefined;
}

export const documentMode: ReplyMode = {
  name: 'document',
  editFormat: 'whole',
  accept(reply, ctx) {
    const bad = precheck(reply, ctx);
    if (bad) return bad;
    const fixes: string[] = [];
    const lf = reply.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
    const body = unwrap(lf, ctx, fixes);
    if (body.trim() === '') return reject('empty', 'The reply held no document text once its wrapping was removed.');
    const words = countWords(body);
    const summary = summaryCheck(words, ctx, 'The reply has');
    if (summary) return summary;
    const seen = observe(reply);
    if (fixes.length > 0) {
      // The edges of a wrapped reply belong to the wrapper, so they say nothing about the agent's document.
      seen.finalNewline = observe(ctx.original).finalNewline;
      seen.leadingBlank = false;
    }
    const restored = restoreConventions(body, ctx.original, seen);
    return { ok: true, document: restored.text, fixes: [...fixes, ...restored.fixes], words };
  },
};

/** The share of the sent document's words below which a result is a summary, checked for every mode alike. */
function summaryCheck(words: number, ctx: ReplyContext, subject: string): ReplyRejection | undefined {
  const sentWords = ctx.sentWords ?? countWords(ctx.sent);
  if (!(sentWords > ctx.summaryMinWords && words < ctx.summaryRatio * sentWords)) return undefined;
  const pct = Math.round(ctx.summaryRatio * 100);
  return reject(
    'summary',
    `${subject} ${plural(words, 'word')} but the document sent has ${sentWords}, under ${pct}% of it, so it looks like a summary instead of the complete revised document.`,
  );
}

/**
 * Search/replace blocks against `ctx.sent` (the document in the prompt's frame), applied in
 * order; a reply without blocks is read as a whole document. Blocks that fail are reported in
 * `edits.failures` with the rest applied; the caller decides whether to repair them.
 */
export const editsMode: ReplyMode = {
  name: 'edits',
  editFormat: 'edits',
  accept(reply, ctx) {
    const bad = precheck(reply, ctx, editReplyLimit(ctx.maxBytes));
    if (bad) return bad;
    const parsed = parseEditReply(reply);
    if (parsed.kind === 'document') {
      const whole = documentMode.accept(reply, ctx);
      return whole.ok ? { ...whole, edits: { reply: 'document', blocks: [], failures: [] } } : whole;
    }
    if (parsed.kind === 'malformed') return reject('malformed', parsed.reason);
    const result = applyEditBlocks(ctx.sent, parsed.blocks);
    const leftBytes = Buffer.byteLength(result.text, 'utf8');
    if (leftBytes > ctx.maxBytes) {
      return reject('malformed', `The edit blocks leave a document of ${leftBytes} bytes, over the ${ctx.maxBytes}-byte limit.`);
    }
    // The blocks were applied to the document sent: its words and theirs give the count.
    const words = (ctx.sentWords ?? countWords(ctx.sent)) + result.wordDelta;
    const summary = summaryCheck(words, ctx, 'The document the edit blocks leave has');
    if (summary) return summary;
    // The blocks were applied to the document as sent, so its conventions are the original's: nothing to report.
    const restored = restoreConventions(result.text, ctx.original, { ...observe(ctx.original), leadingBlank: false });
    // Leading blank lines the blocks left are trimmed away: line numbers follow the document as written.
    const trimmed = observe(ctx.original).leadingBlank ? 0 : (/^(?:[ \t]*\n)+/.exec(result.text)?.[0].split('\n').length ?? 1) - 1;
    const shift = (line: number): number => Math.max(1, line - trimmed);
    const blocks = result.outcomes.map((o) => (o.line === null ? o : { ...o, line: shift(o.line) }));
    const failures = result.failures.map((f) => ({ ...f, excerpts: f.excerpts.map((e) => ({ ...e, line: shift(e.line) })) }));
    const fixes = [...restored.fixes, ...(parsed.stray ? ['ignored text outside the edit blocks'] : [])];
    return { ok: true, document: restored.text, fixes, words, edits: { reply: 'blocks', blocks, failures } };
  },
};

export const REPLY_MODES: Readonly<Record<string, ReplyMode>> = { document: documentMode, edits: editsMode };

/** The reply mode that asks for `format`. */
export function replyModeFor(format: EditFormat): string {
  return Object.values(REPLY_MODES).find((m) => m.editFormat === format)?.name ?? documentMode.name;
}

export function replyMode(name = 'document'): ReplyMode {
  const mode = Object.hasOwn(REPLY_MODES, name) ? REPLY_MODES[name] : undefined;
  if (!mode) throw usageError(`unknown reply mode "${name}"`, `use one of: ${Object.keys(REPLY_MODES).join(', ')}`);
  return mode;
}

function reject(kind: RejectKind, reason: string): ReplyRejection {
  return { ok: false, kind, reason };
}

/** Removes what agents wrap around a document: echoed delimiters, one code fence, one preamble line. */
const FIRST_TEXT_LINE = /^[ \t]*\S.*$/m;

function unwrap(text: string, ctx: ReplyContext, fixes: string[]): string {
  // The common case, checked without splitting a long reply: no delimiter echoed, and a first
  // line that opens no fence and is no preamble, so there is nothing to unwrap.
  if (!text.includes('<<<BOUNCE-DOCUMENT-') && !text.includes('<<<END-BOUNCE-DOCUMENT-')) {
    const first = FIRST_TEXT_LINE.exec(text)?.[0] ?? '';
    if (!FENCE_OPEN.test(first) && !isPreamble(first)) return text;
  }
  // Built only when a line needs it (a look-alike delimiter or a preamble): documents run to megabytes.
  let sentSet: Set<string> | undefined;
  const sentLines = { has: (line: string): boolean => (sentSet ??= new Set(ctx.sent.split('\n').map((l) => l.trim()))).has(line) };
  let lines = stripDelimiters(text.split('\n'), ctx.delimiters, sentLines, fixes);
  let unfenced = unwrapFence(lines, ctx.sent);
  if (unfenced) fixes.push('unwrapped code fence');
  lines = unfenced ?? lines;
  const first = lines.findIndex((l) => l.trim() !== '');
  const line = lines[first]?.trim() ?? '';
  if (first >= 0 && isPreamble(lines[first] ?? '') && !sentLines.has(line) && lines.slice(first + 1).some((l) => l.trim() !== '')) {
    lines = lines.slice(first + 1);
    fixes.push('dropped preamble line');
    // "Here is the document:" followed by a fenced document is the commonest wrapping of all.
    if (!unfenced && (unfenced = unwrapFence(lines, ctx.sent))) {
      lines = unfenced;
      fixes.push('unwrapped code fence');
    }
  }
  return lines.join('\n');
}

const ANY_OPEN = /^<<<BOUNCE-DOCUMENT-[^<>\s]*>>>$/;
const ANY_CLOSE = /^<<<END-BOUNCE-DOCUMENT-[^<>\s]*>>>$/;

function stripDelimiters(lines: string[], d: Delimiters, sentLines: { has(line: string): boolean }, fixes: string[]): string[] {
  // A look-alike that the document itself contains is content, not an echo.
  const isOpen = (l: string): boolean => l.trim() === d.open || (ANY_OPEN.test(l.trim()) && !sentLines.has(l.trim()));
  const isClose = (l: string): boolean => l.trim() === d.close || (ANY_CLOSE.test(l.trim()) && !sentLines.has(l.trim()));
  const open = lines.findIndex(isOpen);
  const close = open < 0 ? -1 : lines.findIndex((l, i) => i > open && isClose(l));
  let body = lines;
  if (close > open && open >= 0) {
    body = lines.slice(open + 1, close);
    const outside = [...lines.slice(0, open), ...lines.slice(close + 1)];
    if (outside.some((l) => l.trim() !== '' && !isOpen(l) && !isClose(l))) fixes.push('dropped text outside the delimiters');
  }
  const kept = body.filter((l) => !isOpen(l) && !isClose(l));
  if (kept.length !== lines.length) fixes.push('removed echoed delimiters');
  return kept;
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

/** The inside of `lines` if they are, blank lines aside, one fenced block (any info string). */
export function fencedInner(lines: readonly string[]): string[] | undefined {
  const start = lines.findIndex((l) => l.trim() !== '');
  let end = lines.length - 1;
  while (end >= 0 && (lines[end] ?? '').trim() === '') end--;
  if (start < 0 || end <= start) return undefined;
  const open = FENCE_OPEN.exec(lines[start] ?? '');
  const close = FENCE_CLOSE.exec(lines[end] ?? '');
  if (!open || !close) return undefined;
  const fence = open[1] ?? '';
  const closer = close[1] ?? '';
  if (fence.startsWith('`') && (open[2] ?? '').includes('`')) return undefined;
  if (closer[0] !== fence[0] || closer.length < fence.length) return undefined;
  return lines.slice(start + 1, end);
}

function unwrapFence(lines: string[], sent: string): string[] | undefined {
  const inner = fencedInner(lines);
  if (!inner) return undefined;
  // A document that is itself one code block keeps its fence, unless the agent wrapped it again.
  if (fencedInner(sent.split('\n')) && !fencedInner(inner)) return undefined;
  return inner;
}

/** "Here is the revised document:": prose ending in a colon, not a heading, list item, quote or indented line. */
function isPreamble(line: string): boolean {
  const t = line.trimEnd();
  return t.endsWith(':') && !/^(?:[\s#>*+|-]|\d+[.)]\s)/.test(t) && countWords(t) >= 2;
}

export interface Observed {
  bom: boolean;
  crlf: boolean;
  bareLf: boolean;
  finalNewline: boolean;
  leadingBlank: boolean;
}

/** How many line breaks (LF or CRLF, each one break) end `text`, and how many characters they take. */
function trailingBreaks(text: string): { breaks: number; chars: number } {
  let i = text.length;
  let breaks = 0;
  while (i > 0 && text[i - 1] === '\n') {
    breaks++;
    i -= text[i - 2] === '\r' ? 2 : 1;
  }
  return { breaks, chars: text.length - i };
}

function occurrences(text: string, what: string): number {
  let n = 0;
  for (let i = text.indexOf(what); i !== -1; i = text.indexOf(what, i + what.length)) n++;
  return n;
}

export function observe(text: string): Observed {
  return {
    bom: text.startsWith('\uFEFF'),
    crlf: text.includes('\r\n'),
    bareLf: /(^|[^\r])\n/.test(text),
    finalNewline: text.endsWith('\n'),
    leadingBlank: /^\uFEFF?[ \t]*\r?\n/.test(text),
  };
}

/**
 * Gives `text` the original's BOM, line endings (CRLF if at least half of its breaks are CRLF), and
 * trailing line breaks; leading blank lines go unless the original starts with one.
 * `seen` describes the reply as received, so the fixes name what the agent got wrong.
 */
export function restoreConventions(text: string, original: string, seen: Observed = observe(text)): { text: string; fixes: string[] } {
  const fixes: string[] = [];
  const orig = observe(original);
  let body = text.replace(/^\uFEFF/, '');
  if (body.includes('\r\n')) body = body.replace(/\r\n/g, '\n');
  if (!orig.leadingBlank) {
    const trimmed = body.replace(/^(?:[ \t]*\n)+/, '');
    if (trimmed !== body && seen.leadingBlank) fixes.push('trimmed leading blank lines');
    body = trimmed;
  }
  // Counted from the end: an end-anchored regex would scan a long document from its start.
  body = body.slice(0, body.length - trailingBreaks(body).chars) + '\n'.repeat(trailingBreaks(original).breaks);
  if (orig.finalNewline && !seen.finalNewline) fixes.push('restored final newline');
  if (!orig.finalNewline && seen.finalNewline) fixes.push('removed final newline');
  const crlfCount = original.includes('\r\n') ? occurrences(original, '\r\n') : 0;
  const lfCount = crlfCount > 0 ? occurrences(original, '\n') : 0;
  if (crlfCount > 0 && crlfCount * 2 >= lfCount) {
    if (seen.bareLf && body.includes('\n')) fixes.push('restored CRLF line endings');
    body = body.replace(/\n/g, '\r\n');
  } else if (seen.crlf) {
    fixes.push('converted CRLF line endings to LF');
  }
  if (orig.bom) {
    if (!seen.bom) fixes.push('restored BOM');
    body = `\uFEFF${body}`;
  } else if (seen.bom) {
    fixes.push('removed BOM');
  }
  return { text: body, fixes };
}
