import { maxOf } from '../arrays.js';

/** What identifies a note across passes (a scanner `Note` has it). */
export interface NoteIdentity {
  kind: string;
  text: string;
}

/** Identity of a note across passes: its kind and whitespace-normalised text. */
export function noteKey(note: NoteIdentity): string {
  return `${note.kind}\u0000${note.text.replace(/\s+/g, ' ').trim()}`;
}

/**
 * Multiset difference on noteKey: an edited note counts as one resolved plus one added. Of
 * several notes with the same key, the ones a side keeps are told apart by where they stand
 * (pairNotes): when one of two identical notes goes, the one that went is the one whose place
 * the other side no longer has, not the first.
 */
export function diffNotes<N extends NoteIdentity>(before: readonly N[], after: readonly N[]): { added: N[]; resolved: N[] } {
  return { added: unmatched(after, before), resolved: unmatched(before, after) };
}

/** A note's place, when the caller knows it (a scanner `Note` does): its line, and the text it refers to. */
interface Placed extends NoteIdentity {
  line?: number;
  refersTo?: { text: string } | null;
}

/** Beyond this many pairs to weigh, notes of one key are matched in order (one line of notes may hold hundreds of thousands). */
const PAIRING_LIMIT = 250_000;

/** Notes of `from` left over once each note of `other` has cancelled one with the same key. */
function unmatched<N extends NoteIdentity>(from: readonly N[], other: readonly N[]): N[] {
  const groups = new Map<string, { from: number[]; other: N[] }>();
  const group = (note: N) => {
    const key = noteKey(note);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { from: [], other: [] }));
    return g;
  };
  for (const [i, note] of from.entries()) group(note).from.push(i);
  for (const note of other) group(note).other.push(note);
  const left = new Set<number>();
  for (const g of groups.values()) {
    if (g.from.length <= g.other.length) continue;
    const kept =
      g.other.length === 0
        ? []
        : pairNotes(
            g.from.map((i) => from[i]!),
            g.other,
          );
    const keep = new Set(kept);
    g.from.forEach((i, k) => {
      if (!keep.has(k)) left.add(i);
    });
  }
  return from.filter((_, i) => left.has(i));
}

/**
 * Which of `many` (notes with one key, in document order) the fewer notes of `few` are, in
 * order, as indexes into `many`: the alignment that keeps the order and pairs notes that
 * refer to the most alike text (the share of words in common), then notes nearest in line. Notes whose place
 * is unknown, or too many to weigh, pair in order: the first ones.
 */
function pairNotes(many: readonly Placed[], few: readonly Placed[]): number[] {
  const n = many.length;
  const m = few.length;
  const placed = (p: Placed): boolean => p.line !== undefined || p.refersTo != null;
  if (n * m > PAIRING_LIMIT || !many.every(placed) || !few.every(placed)) return few.map((_, k) => k);
  const words = new Map<Placed, Set<string>>();
  const wordsOf = (p: Placed): Set<string> => {
    let w = words.get(p);
    if (!w) words.set(p, (w = new Set(p.refersTo?.text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])));
    return w;
  };
  const span =
    1 +
    maxOf(
      0,
      [...many, ...few].map((p) => p.line ?? 0),
    );
  // How unlike the texts the two refer to are (1 less the share of their words in common),
  // then, at a tenth of that weight at most, how far apart their lines are.
  const cost = (a: Placed, b: Placed): number => {
    const wa = wordsOf(a);
    const wb = wordsOf(b);
    let common = 0;
    for (const w of wa) if (wb.has(w)) common++;
    const union = wa.size + wb.size - common;
    return (union === 0 ? 1 : 1 - common / union) + Math.abs((a.line ?? 0) - (b.line ?? 0)) / (10 * span);
  };
  // best[k][j]: the least cost of pairing the first k of `few` within the first j of `many`.
  const best: Float64Array[] = Array.from({ length: m + 1 }, () => new Float64Array(n + 1).fill(Number.POSITIVE_INFINITY));
  best[0]!.fill(0);
  for (let k = 1; k <= m; k++) for (let j = k; j <= n; j++) best[k]![j] = Math.min(best[k]![j - 1]!, best[k - 1]![j - 1]! + cost(many[j - 1]!, few[k - 1]!));
  const out: number[] = [];
  for (let k = m, j = n; k > 0; j--) {
    // Pair many[j - 1] with few[k - 1] when that is how the best was reached (ties: the earlier notes go unpaired last).
    if (best[k]![j] === best[k]![j - 1]) continue;
    out.push(j - 1);
    k--;
  }
  return out.reverse();
}
