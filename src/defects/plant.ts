/**
 * The planting tool (`bounce bench plant DOC --out DIR`, docs/defect-bench.md): a copy of a
 * document with defects planted by a few deterministic transformations, and its answer key.
 * The same document, seed and count give the same copy and key, byte for byte.
 */
import { splitLines } from '../text/line-diff.js';
import { type Defect, type DefectKind, fixedIn, parseAnswerKey } from './key.js';

/** Defects planted when --count does not say. */
export const DEFAULT_PLANT_COUNT = 4;
/** Planted defects are at least this many lines apart, so that one note cannot find two. */
const SPACING = 6;

/** mulberry32: a small seeded generator, the same sequence on every machine. */
export function seededRandom(seed: number): () => number {
  let s = seed | 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One place a transformation could plant a defect, and what planting it does. */
interface Candidate {
  transform: TransformName;
  kind: DefectKind;
  /** 0-based line the defect will be on. */
  line: number;
  /** How many lines, from `line`, `replace` takes the place of (1 unless said). */
  span?: number;
  /** The lines that replace them. */
  replace: string[];
  description: string;
  fixedWhen: Defect['fixed_when'];
}

/** The transformations, by name (docs/defect-bench.md, "Planting defects"). */
export const TRANSFORMS = ['swap-number', 'drop-definition', 'drop-step', 'change-reference'] as const;
export type TransformName = (typeof TRANSFORMS)[number];

/** Lines inside fenced code blocks and front matter, which no transformation touches. */
function proseLines(lines: readonly string[]): boolean[] {
  const prose: boolean[] = [];
  let fence: string | null = null;
  for (const l of lines) {
    const m = /^\s*(`{3,}|~{3,})/.exec(l);
    if (fence) {
      prose.push(false);
      if (m && m[1]!.startsWith(fence)) fence = null;
    } else if (m) {
      fence = m[1]!;
      prose.push(false);
    } else prose.push(!/^\s*(#|\||<)/.test(l));
  }
  return prose;
}

/** How often `part` occurs in `text`, case aside (as fixed_when reads). */
const count = (text: string, part: string): number => text.toLowerCase().split(part.toLowerCase()).length - 1;

/** The changed part of `line`, [start, end), with up to two words either side: a text a fix is expected to remove. */
function around(line: string, start: number, end: number): string {
  const before = /(?:\S+\s+){0,2}$/.exec(line.slice(0, start))?.[0] ?? '';
  const after = /^\S*(?:\s+\S+){0,2}/.exec(line.slice(end))?.[0] ?? '';
  return `${before}${line.slice(start, end)}${after}`.trim();
}

/** swap-number: a number stated in two places is changed in the second. */
function swapNumber(lines: readonly string[], prose: boolean[], text: string): Candidate[] {
  const out: Candidate[] = [];
  lines.forEach((l, i) => {
    if (!prose[i]) return;
    for (const m of l.matchAll(/(?<![\w.:/-])(\d{2,5})(?![\w.:/-]|\.\d)/g)) {
      const n = m[1]!;
      const re = new RegExp(`(?<![\\w.:/-])${n}(?![\\w.:/-]|\\.\\d)`, 'g');
      const places = [...text.matchAll(re)].length;
      if (places !== 2) continue;
      const first = lines.findIndex((x, j) => prose[j] && new RegExp(re.source).test(x));
      if (first === i) continue;
      const changed = String(Number(n) * 2);
      const start = m.index!;
      const next = `${l.slice(0, start)}${changed}${l.slice(start + n.length)}`;
      const gone = around(next, start, start + changed.length);
      if (text.includes(gone)) continue;
      out.push({
        transform: 'swap-number',
        kind: 'contradiction',
        line: i,
        replace: [next],
        description: `says ${changed} where the document says ${n} elsewhere`,
        fixedWhen: { absent: gone },
      });
    }
  });
  return out;
}

/** drop-definition: `Long Name (ABBR)` loses its expansion where the abbreviation is introduced. */
function dropDefinition(lines: readonly string[], prose: boolean[], text: string): Candidate[] {
  const out: Candidate[] = [];
  lines.forEach((l, i) => {
    if (!prose[i]) return;
    for (const m of l.matchAll(/\(([A-Z]{2,6})\)/g)) {
      const abbr = m[1]!;
      // The expansion: as many words before the parenthesis as the abbreviation has letters, their initials its letters.
      const words = /((?:[A-Za-z]+[ -]){0,8}[A-Za-z]+) $/.exec(l.slice(0, m.index))?.[1]?.split(/(?=[ -])/) ?? [];
      const name = words.slice(-abbr.length).join('').trim();
      const initials = name
        .split(/[ -]/)
        .map((w) => w[0]?.toUpperCase())
        .join('');
      if (initials !== abbr || count(text, name) !== 1 || count(text, abbr) < 2) continue;
      out.push({
        transform: 'drop-definition',
        kind: 'undefined-term',
        line: i,
        replace: [l.replace(`${name} (${abbr})`, abbr)],
        description: `${abbr} is used but never defined (it stood for ${name})`,
        fixedWhen: { present: name },
      });
    }
  });
  return out;
}

/** drop-step: one step of a numbered list of three or more is removed (with its continuation lines) and the steps after it renumbered. */
function dropStep(lines: readonly string[], prose: boolean[], text: string): Candidate[] {
  const out: Candidate[] = [];
  const item = /^(\s*)(\d+)\. (.*)$/;
  // The lists: runs of items, each item with the indented lines that continue it.
  const lists: { start: number; end: number }[][] = [];
  let current: { start: number; end: number }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (prose[i] && item.test(l) && (current.length === 0 || item.exec(l)![1] === item.exec(lines[current[0]!.start]!)![1])) current.push({ start: i, end: i });
    else if (current.length && l.trim() !== '' && /^\s+\S/.test(l) && prose[i]) current.at(-1)!.end = i;
    else {
      if (current.length) lists.push(current);
      current = [];
    }
  }
  if (current.length) lists.push(current);
  for (const list of lists) {
    if (list.length < 3) continue;
    const numbers = list.map((it) => Number(item.exec(lines[it.start]!)![2]));
    if (numbers.some((n, k) => n !== numbers[0]! + k)) continue;
    list.slice(1, -1).forEach((it, k) => {
      const at = k + 1;
      const step = lines
        .slice(it.start, it.end + 1)
        .join(' ')
        .replace(item, '$3')
        .replace(/\s+/g, ' ');
      const key = (step.match(/[A-Za-z][A-Za-z-]{5,}/g) ?? []).find((w) => count(text, w) === 1);
      if (!key) return;
      const last = list.at(-1)!.end;
      const rest = lines.slice(it.end + 1, last + 1).map((l) => l.replace(/^(\s*)(\d+)\. /, (_m, ws: string, n: string) => `${ws}${Number(n) - 1}. `));
      out.push({
        transform: 'drop-step',
        kind: 'missing-step',
        line: it.start,
        span: last - it.start + 1,
        replace: rest,
        description: `step ${numbers[at]} ("${step}") was removed`,
        fixedWhen: { present: key },
      });
    });
  }
  return out;
}

/** change-reference: a reference to a numbered step or section points elsewhere. */
function changeReference(lines: readonly string[], prose: boolean[], text: string): Candidate[] {
  const out: Candidate[] = [];
  lines.forEach((l, i) => {
    if (!prose[i]) return;
    for (const m of l.matchAll(/\b((?:[Ss]tep|[Ss]ection|\u00a7) ?)(\d+)\b/g)) {
      const [whole, word, n] = m as unknown as [string, string, string];
      const changed = `${word}${Number(n) + 3}`;
      if (text.includes(changed)) continue;
      const start = m.index!;
      const next = `${l.slice(0, start)}${changed}${l.slice(start + whole.length)}`;
      out.push({
        transform: 'change-reference',
        kind: 'stale-reference',
        line: i,
        replace: [next],
        description: `"${changed}" should be "${whole}"`,
        fixedWhen: { absent: changed },
      });
    }
  });
  return out;
}

const FINDERS: Record<TransformName, (lines: readonly string[], prose: boolean[], text: string) => Candidate[]> = {
  'swap-number': swapNumber,
  'drop-definition': dropDefinition,
  'drop-step': dropStep,
  'change-reference': changeReference,
};

export interface Planted {
  text: string;
  defects: Defect[];
  /** Transformations that found no place in the document. */
  unused: TransformName[];
}

/**
 * Plants up to `count` defects in `doc`: the transformations take turns (in an order the
 * seed shuffles), each at a place the seed picks among those it can change, no two defects
 * closer than SPACING lines. The key's lines are those of the planted copy.
 */
export function plantDefects(doc: string, opts: { seed: number; count?: number; transforms?: readonly TransformName[] }): Planted {
  const random = seededRandom(opts.seed);
  const lines = splitLines(doc);
  const prose = proseLines(lines);
  const order = [...(opts.transforms ?? TRANSFORMS)];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  // A candidate counts only if its check tells the two apart: it holds in the document as it was, and not once planted.
  const apart = (c: Candidate): boolean => {
    const planted = [...lines];
    planted.splice(c.line, c.span ?? 1, ...c.replace);
    return fixedIn(c.fixedWhen, doc) && !fixedIn(c.fixedWhen, planted.join('\n'));
  };
  const pools = new Map(order.map((t) => [t, FINDERS[t](lines, prose, doc).filter(apart)]));
  const unused = order.filter((t) => pools.get(t)!.length === 0);
  const want = opts.count ?? DEFAULT_PLANT_COUNT;
  const chosen: Candidate[] = [];
  let progress = true;
  while (chosen.length < want && progress) {
    progress = false;
    for (const t of order) {
      if (chosen.length >= want) break;
      // Spans apart by SPACING lines at least: no two defects share a line, and a drop-step's renumbered list is its own.
      const clear = (x: Candidate, c: Candidate): boolean => x.line + (x.span ?? 1) - 1 + SPACING <= c.line || c.line + (c.span ?? 1) - 1 + SPACING <= x.line;
      const pool = pools.get(t)!.filter((c) => chosen.every((x) => clear(x, c)));
      if (pool.length === 0) continue;
      chosen.push(pool[Math.floor(random() * pool.length)]!);
      progress = true;
    }
  }
  // From the bottom up, so that a removed line moves only the defects below it, already placed.
  const out = [...lines];
  const defects: Defect[] = [];
  for (const c of [...chosen].sort((a, b) => b.line - a.line)) {
    out.splice(c.line, c.span ?? 1, ...c.replace);
    const shift = c.replace.length - (c.span ?? 1);
    for (const d of defects) d.line += shift;
    // A removed line leaves the defect where the next line moved up to (the last line, at the end).
    defects.push({ id: '', line: Math.min(c.line, out.length - 1) + 1, kind: c.kind, description: c.description, fixed_when: c.fixedWhen });
  }
  defects.sort((a, b) => a.line - b.line);
  defects.forEach((d, i) => {
    d.id = `p${i + 1}`;
  });
  const text = `${out.join('\n')}${doc.endsWith('\n') ? '\n' : ''}`;
  // The key must hold for the copy as any corpus key must (a bug here is caught before it is written).
  if (defects.length > 0) parseAnswerKey(JSON.stringify(defects), 'planted key', text);
  return { text, defects, unused };
}
