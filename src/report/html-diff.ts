import { esc } from './escape.js';
import { diffLines, splitLines, type DiffOp } from '../text/line-diff.js';

type Cell = { n: number; text: string; kind: 'eq' | 'del' | 'ins' } | null;
type Row = { left: Cell; right: Cell } | { skipped: number } | { omitted: number };

/**
 * The most rows one table shows. A page is for reading: a change of every line of a
 * 2 MB document would make a page of over 100 MB (and take a minute to build), so the rest
 * is one row that says how many lines it holds and where to see them.
 */
export const MAX_DIFF_ROWS = 5_000;

/** Pairs removed and added lines of one change block so they sit side by side. */
function toRows(ops: DiffOp[]): { left: Cell; right: Cell }[] {
  const rows: { left: Cell; right: Cell }[] = [];
  let dels: Cell[] = [];
  let ins: Cell[] = [];
  const flush = (): void => {
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
  return `<td class="ln"${id ? ` id="${esc(`${id}${c.n}`)}"` : ''}>${c.n}</td><td class="${cls}">${esc(c.text) || '&nbsp;'}</td>`;
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
        ? `<tr class="skip"><td colspan="4">&#8943; ${r.omitted} more line${r.omitted === 1 ? '' : 's'} not shown here: <code>bounce diff</code> prints the whole change</td></tr>`
        : 'skipped' in r
          ? `<tr class="skip"><td colspan="4">&#8943; ${r.skipped} unchanged line${r.skipped === 1 ? '' : 's'}</td></tr>`
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
