/** A line diff (Myers' O(ND) greedy algorithm) and a unified-diff renderer. */

export type DiffOp =
  | { type: 'equal'; line: string; a: number; b: number }
  | { type: 'delete'; line: string; a: number }
  | { type: 'insert'; line: string; b: number };

/** Lines of a text; a final newline does not start another line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** Shortest edit script between two line arrays (or any two string sequences: the word diff's words); `a`/`b` are 0-based indices. */
export function diffLines(a: readonly string[], b: readonly string[]): DiffOp[] {
  // Common prefix and suffix cost nothing to match and shrink the search a lot.
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const ops: DiffOp[] = [];
  for (let i = 0; i < pre; i++) ops.push({ type: 'equal', line: a[i]!, a: i, b: i });
  // A loop, not push(...): a spread of a long edit script overflows the call stack.
  for (const op of myers(a.slice(pre, a.length - suf), b.slice(pre, b.length - suf), pre)) ops.push(op);
  for (let k = suf; k > 0; k--) ops.push({ type: 'equal', line: a[a.length - k]!, a: a.length - k, b: b.length - k });
  return ops;
}

/** Beyond this many edits the trace would cost too much memory: show a full replacement. */
const MAX_EDITS = 4000;

function myers(a: readonly string[], b: readonly string[], offset: number): DiffOp[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  if (Math.abs(n - m) > MAX_EDITS) return replaceAll(a, b, offset);
  const v = new Int32Array(2 * max + 2);
  // trace[d] keeps v for diagonals -d..d before round d: memory grows with D², not D·(N+M).
  const trace: Int32Array[] = [];
  let found = max === 0;
  for (let d = 0; d <= max && !found; d++) {
    if (d > MAX_EDITS) return replaceAll(a, b, offset);
    trace.push(v.slice(max - d, max + d + 1));
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && v[max + k - 1]! < v[max + k + 1]!);
      let x = down ? v[max + k + 1]! : v[max + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[max + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
  }
  // Walk the trace back from (n, m) to (0, 0).
  const ops: DiffOp[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d]!;
    const at = (k: number): number => vd[k + d]!;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      ops.push({ type: 'equal', line: a[x]!, a: x + offset, b: y + offset });
    }
    if (d === 0) break;
    if (down) ops.push({ type: 'insert', line: b[--y]!, b: y + offset });
    else ops.push({ type: 'delete', line: a[--x]!, a: x + offset });
  }
  return ops.reverse();
}

function replaceAll(a: readonly string[], b: readonly string[], offset: number): DiffOp[] {
  return [...a.map((line, i): DiffOp => ({ type: 'delete', line, a: i + offset })), ...b.map((line, i): DiffOp => ({ type: 'insert', line, b: i + offset }))];
}

export interface Hunk {
  aStart: number;
  aLines: number;
  bStart: number;
  bLines: number;
  ops: DiffOp[];
}

/** Groups changes with `context` equal lines around them; nearby groups merge. */
export function hunks(ops: readonly DiffOp[], context = 3): Hunk[] {
  const changed = ops.map((op, i) => (op.type === 'equal' ? -1 : i)).filter((i) => i >= 0);
  const out: Hunk[] = [];
  let i = 0;
  while (i < changed.length) {
    let from = Math.max(0, changed[i]! - context);
    let to = Math.min(ops.length - 1, changed[i]! + context);
    while (i + 1 < changed.length && changed[i + 1]! - context <= to + 1) to = Math.min(ops.length - 1, changed[++i]! + context);
    i++;
    const slice = ops.slice(from, to + 1);
    const aStart = firstIndex(ops, from, 'a');
    const bStart = firstIndex(ops, from, 'b');
    out.push({
      aStart,
      bStart,
      aLines: slice.filter((o) => o.type !== 'insert').length,
      bLines: slice.filter((o) => o.type !== 'delete').length,
      ops: slice,
    });
    from = to + 1;
  }
  return out;
}

/** 0-based line in side `s` where ops[from] sits (the next line that side has). */
function firstIndex(ops: readonly DiffOp[], from: number, s: 'a' | 'b'): number {
  for (let j = from; j < ops.length; j++) {
    const op = ops[j]!;
    if (s in op) return (op as Record<'a' | 'b', number>)[s];
  }
  for (let j = from - 1; j >= 0; j--) {
    const op = ops[j]!;
    if (s in op) return (op as Record<'a' | 'b', number>)[s] + 1;
  }
  return 0;
}

export interface UnifiedOptions {
  aName: string;
  bName: string;
  context?: number;
  /** Wraps header, hunk, removed and added lines (colour); identity by default. */
  paint?: Partial<Record<'header' | 'hunk' | 'delete' | 'insert', (s: string) => string>>;
  /** `git diff --word-diff=plain`: a changed block is its new lines with `[-removed-]{+added+}` in place (paint wraps each mark). */
  words?: boolean;
}

/** `diff -u` style text; empty when the texts have the same lines. */
export function unifiedDiff(aText: string, bText: string, opts: UnifiedOptions): string {
  const hs = hunks(diffLines(splitLines(aText), splitLines(bText)), opts.context ?? 3);
  if (hs.length === 0) return '';
  const p = { header: id, hunk: id, delete: id, insert: id, ...opts.paint };
  const lines = [p.header(`--- ${opts.aName}`), p.header(`+++ ${opts.bName}`)];
  for (const h of hs) {
    // diff -u numbers an empty side from the line before it.
    const range = (start: number, len: number): string => `${len === 0 ? start : start + 1},${len}`;
    lines.push(p.hunk(`@@ -${range(h.aStart, h.aLines)} +${range(h.bStart, h.bLines)} @@`));
    if (opts.words) {
      lines.push(...wordLines(h.ops, { removed: (s) => p.delete(`[-${s}-]`), added: (s) => p.insert(`{+${s}+}`) }));
      continue;
    }
    for (const op of h.ops) lines.push(op.type === 'equal' ? ` ${op.line}` : op.type === 'delete' ? p.delete(`-${op.line}`) : p.insert(`+${op.line}`));
  }
  return `${lines.join('\n')}\n`;
}

const id = (s: string): string => s;

/**
 * Changed words inside changed lines, as `git diff --word-diff` finds them: the words of the
 * removed and of the added text are compared with the one sequence diff (`diffLines` compares
 * any two string sequences; here one word is one item), and each run of changed words with
 * the spaces inside it is one change.
 */

/** A word: a run of characters that are not space (git's default), and each CJK character alone (a line of such text has no spaces to split on). */
interface Word {
  text: string;
  start: number;
  end: number;
}

/** git's isspace: the ASCII blanks. */
const BLANK = /[ \t\n\v\f\r]/;
/** Scripts written without spaces between words: each character is a word of its own. */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/u;

function words(text: string): Word[] {
  const out: Word[] = [];
  let start = -1;
  const close = (at: number): void => {
    if (start >= 0) out.push({ text: text.slice(start, at), start, end: at });
    start = -1;
  };
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    const size = cp > 0xffff ? 2 : 1;
    const ch = text.slice(i, i + size);
    if (BLANK.test(ch)) close(i);
    else if (CJK.test(ch)) {
      close(i);
      out.push({ text: ch, start: i, end: i + size });
    } else if (start < 0) start = i;
    i += size;
  }
  close(text.length);
  return out;
}

/** One change: the removed span of the old text and the added span of the new one (offsets, end exclusive; an empty span is where the other side's change sits). */
export interface WordChange {
  removed: [number, number];
  added: [number, number];
}

/** The changes between two texts, word by word, in order; none when their words are the same (spaces aside). */
export function wordChanges(before: string, after: string): WordChange[] {
  const a = words(before);
  const b = words(after);
  const ops = diffLines(
    a.map((w) => w.text),
    b.map((w) => w.text),
  );
  const out: WordChange[] = [];
  let ia = 0;
  let ib = 0;
  // As git: an empty side sits just after the word before the change (or at the start).
  const span = (ws: Word[], from: number, to: number): [number, number] => {
    if (to > from) return [ws[from]!.start, ws[to - 1]!.end];
    const at = from > 0 ? ws[from - 1]!.end : 0;
    return [at, at];
  };
  for (let i = 0; i < ops.length; ) {
    if (ops[i]!.type === 'equal') {
      ia++;
      ib++;
      i++;
      continue;
    }
    const [fa, fb] = [ia, ib];
    while (i < ops.length && ops[i]!.type !== 'equal') {
      if (ops[i]!.type === 'delete') ia++;
      else ib++;
      i++;
    }
    out.push({ removed: span(a, fa, ia), added: span(b, fb, ib) });
  }
  return out;
}

/** Whether the two texts share no word: then a word diff says no more than the lines do. */
export function noWordInCommon(before: string, after: string, changes: readonly WordChange[]): boolean {
  if (changes.length !== 1) return false;
  const [c] = changes;
  return (
    words(before.slice(0, c!.removed[0]) + before.slice(c!.removed[1])).length === 0 &&
    words(after.slice(0, c!.added[0]) + after.slice(c!.added[1])).length === 0
  );
}

/** How `--word-diff` marks the parts of a changed block; the text both sides keep is left as it is. */
export interface WordPaint {
  removed: (s: string) => string;
  added: (s: string) => string;
}

/** git's plain style: `[-removed-]{+added+}`. */
export const PLAIN_WORDS: WordPaint = { removed: (s) => `[-${s}-]`, added: (s) => `{+${s}+}` };

/**
 * The lines of `git diff --word-diff=plain` for one block of removed lines and the added
 * lines that replace them: the new text, each change marked in place. A mark that spans a
 * line end is closed before it and opened again after it, as git does.
 */
export function wordDiffLines(removed: readonly string[], added: readonly string[], paint: WordPaint = PLAIN_WORDS): string[] {
  const before = removed.length ? `${removed.join('\n')}\n` : '';
  const after = added.length ? `${added.join('\n')}\n` : '';
  const out: string[] = [];
  let line = '';
  const write = (text: string, mark: ((s: string) => string) | null): void => {
    text.split('\n').forEach((part, i) => {
      if (i > 0) {
        out.push(line);
        line = '';
      }
      if (part !== '') line += mark ? mark(part) : part;
    });
  };
  if (after === '') write(before, paint.removed);
  else {
    let at = 0;
    for (const c of wordChanges(before, after)) {
      write(after.slice(at, c.added[0]), null);
      write(before.slice(c.removed[0], c.removed[1]), paint.removed);
      write(after.slice(c.added[0], c.added[1]), paint.added);
      at = c.added[1];
    }
    write(after.slice(at), null);
  }
  if (line !== '') out.push(line);
  return out;
}

/** A hunk in word-diff form: unchanged lines as they are (no leading space), each block of changed lines word by word. */
function wordLines(ops: readonly DiffOp[], paint: WordPaint): string[] {
  const out: string[] = [];
  let removed: string[] = [];
  let added: string[] = [];
  const flush = (): void => {
    if (removed.length || added.length) out.push(...wordDiffLines(removed, added, paint));
    removed = [];
    added = [];
  };
  for (const op of ops) {
    if (op.type === 'delete') removed.push(op.line);
    else if (op.type === 'insert') added.push(op.line);
    else {
      flush();
      out.push(op.line);
    }
  }
  flush();
  return out;
}
