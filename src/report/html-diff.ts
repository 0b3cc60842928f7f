import { esc } from './escape.js';
import { plural } from '../plural.js';
import { diffLines, noWordInCommon, splitLines, type DiffOp, wordChanges } from '../text/line-diff.js';

/** `marks`: the changed words of a changed line, as [start, end) offsets in its text. */
type Cell = { n: number; text: string; kind: 'eq' | 'del' | 'ins'; marks?: [number, number][] } | null;
type Row = { left: Cell; right: Cell } | { skipped: number } | { omitted: number };

/**
 * The most rows one table shows. A page is for reading: a change of every line of a
 * 2 MB document would make a page of over 100 MB (and take a minute to build), so the rest
 * is one row that says how many lines it holds and where to see them.
 */
export const MAX_DIFF_ROWS = 5_000;

/** Above this many characters a side of a block is not compared word by word: its lines are marked whole. */
const MAX_WORD_DIFF_CHARS = 200_000;

/** Each changed line's share of a block's changes: the spans, cut at line ends, as offsets in each line. */
function markLines(cells: { text: string; marks?: [number, number][] }[], spans: [number, number][]): void {
  let start = 0;
  for (const c of cells) {
    const end = start + c.text.length;
    const marks = spans.map(([s, e]): [number, number] => [Math.max(s, start) - start, Math.min(e, end) - start]).filter(([s, e]) => e > s);
    if (marks.length) c.marks = marks;
    start = end + 1;
  }
}

/** The changed words of a block of removed lines and the added lines that replace them, when the two share any word. */
function markWords(dels: NonNullable<Cell>[], ins: NonNullable<Cell>[]): void {
  if (dels.length === 0 || ins.length === 0) return;
  const before = dels.map((c) => c.text).join('\n');
  const after = ins.map((c) => c.text).join('\n');
  if (before.length > MAX_WORD_DIFF_CHARS || after.length > MAX_WORD_DIFF_CHARS) return;
  // Lines that share no word at all (a block rewritten) are not worth the diff.
  const seen = new Set(before.split(/\s+/));
  if (!after.split(/\s+/).some((w) => w !== '' && seen.has(w)) && !/[^\x00-\x7f]/.test(after)) return;
  const changes = wordChanges(before, after);
  if (changes.length === 0 || noWordInCommon(before, after, changes)) return;
  markLines(
    dels,
    changes.map((c) => c.removed),
  );
  markLines(
    ins,
    changes.map((c) => c.added),
  );
}

/** Pairs removed and added lines of one change block so they sit side by side, their changed words marked. */
function toRows(ops: DiffOp[]): { left: Cell; right: Cell }[] {
  const rows: { left: Cell; right: Cell }[] = [];
  let dels: NonNullable<Cell>[] = [];
  let ins: NonNullable<Cell>[] = [];
  const flush = (): void => {
    markWords(dels, ins);
    for (let i = 0; i < Math.max(dels.length, ins.length); i++) rows.push({ left: dels[i] ?? null, right: ins[i] ?? null });
    dels = [];
    ins = [];
  };
  for (const op of ops) {
    if (op.type === 'delete') dels.push({ n: op.a + 1, text: op.line, kind: 'del' });
    else if (op.type === 'insert') ins.push({ n: op.b + 1, text: op.line, kind: 'ins' });
    else {
      flush();
      rows.push({ left: { n: op.a + 1, text: op.line, kind: 'eq' }, right: { n: op.b + 1, text: op.line, kind: 'eq' } });
    }
  }
  flush();
  return rows;
}

/** Lines of each side to highlight as notes (1-based): every line a note spans, not only its marker's. */
export interface NoteLines {
  before: ReadonlySet<number>;
  after: ReadonlySet<number>;
}

/** Long unchanged stretches fold to one row, keeping `context` lines around each change; a note line is always shown. */
function fold(rows: { left: Cell; right: Cell }[], context: number, notes: NoteLines): Row[] {
  const changed = rows.map(
    (r) =>
      r.left?.kind !== 'eq' || r.right?.kind !== 'eq' || (r.left !== null && notes.before.has(r.left.n)) || (r.right !== null && notes.after.has(r.right.n)),
  );
  const keep = rows.map((_, i) => changed.slice(Math.max(0, i - context), i + context + 1).some(Boolean));
  const out: Row[] = [];
  for (let i = 0; i < rows.length; ) {
    if (keep[i]) {
      out.push(rows[i]!);
      i++;
      continue;
    }
    let j = i;
    while (j < rows.length && !keep[j]) j++;
    out.push({ skipped: j - i });
    i = j;
  }
  return out;
}

/** The lines rows stand for: a folded row its unchanged lines, any other row one line. */
function linesIn(rows: readonly Row[]): number {
  let n = 0;
  for (const r of rows) n += 'skipped' in r ? r.skipped : 1;
  return n;
}

/** One side's cells; with an anchor, the line number cell has the id `<anchor>-<a|b><line>` a link can point at. */
function cell(c: Cell, notes: ReadonlySet<number>, id: string | null): string {
  if (!c) return '<td class="ln"></td><td class="tx empty"></td>';
  const cls = `tx ${c.kind}${notes.has(c.n) ? ' note' : ''}`;
  return `<td class="ln"${id ? ` id="${esc(`${id}${c.n}`)}"` : ''}>${c.n}</td><td class="${cls}">${marked(c) || '&nbsp;'}</td>`;
}

/** A line's text escaped, its changed words in `<del>` (a removed line) or `<ins>` (an added one). */
function marked(c: NonNullable<Cell>): string {
  if (!c.marks) return esc(c.text);
  const tag = c.kind === 'del' ? 'del' : 'ins';
  let out = '';
  let at = 0;
  for (const [s, e] of c.marks) {
    out += `${esc(c.text.slice(at, s))}<${tag}>${esc(c.text.slice(s, e))}</${tag}>`;
    at = e;
  }
  return out + esc(c.text.slice(at));
}

/**
 * A two-column table: the document before the pass on the left, after it on the right, note
 * lines highlighted. `anchor` gives every line an id (`<anchor>-a<n>` left, `<anchor>-b<n>` right).
 */
export function sideBySide(
  before: string,
  after: string,
  notes: NoteLines,
  labels: { before: string; after: string },
  opts: { context?: number; anchor?: string } = {},
): string {
  const folded = fold(toRows(diffLines(splitLines(before), splitLines(after))), opts.context ?? 3, notes);
  const rows: Row[] = folded.length > MAX_DIFF_ROWS ? [...folded.slice(0, MAX_DIFF_ROWS), { omitted: linesIn(folded.slice(MAX_DIFF_ROWS)) }] : folded;
  const [a, b] = opts.anchor ? [`${opts.anchor}-a`, `${opts.anchor}-b`] : [null, null];
  const body = rows
    .map((r) =>
      'omitted' in r
        ? `<tr class="skip"><td colspan="4">&#8943; ${plural(r.omitted, 'more line')} not shown here: <code>bounce diff</code> prints the whole change</td></tr>`
        : 'skipped' in r
          ? `<tr class="skip"><td colspan="4">&#8943; ${plural(r.skipped, 'unchanged line')}</td></tr>`
          : `<tr>${cell(r.left, notes.before, a)}${cell(r.right, notes.after, b)}</tr>`,
    )
    .join('\n');
  const changed = rows.some((r) => 'omitted' in r || (!('skipped' in r) && (r.left?.kind !== 'eq' || r.right?.kind !== 'eq')));
  return (
    `<table class="diff"><colgroup><col class="lnc"><col><col class="lnc"><col></colgroup>` +
    `<thead><tr><th colspan="2">before: ${esc(labels.before)}</th><th colspan="2">after: ${esc(labels.after)}</th></tr></thead>` +
    `<tbody>\n${body}\n</tbody></table>${changed ? '' : '<p class="muted">no changes</p>'}`
  );
}
