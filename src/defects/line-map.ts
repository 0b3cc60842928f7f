/** Lines of a pass's document carried back to the lines of the run's original, where the answer key points. */
import { diffLines, splitLines } from '../text/line-diff.js';

/**
 * A map from each 1-based line of `doc` to a 1-based line of `original`: a line both share
 * maps to itself; in a changed stretch, the k-th new line maps to the k-th line it replaced
 * (the lines past those to the last one replaced); a line only added (a note on a line of its
 * own) maps to the original line just above it (line 1 at the top).
 */
export function originalLines(original: string, doc: string): (line: number) => number {
  const ops = diffLines(splitLines(original), splitLines(doc));
  const map: number[] = [];
  let consumed = 0;
  let deleted: number[] = [];
  let inserted = 0;
  for (const op of ops) {
    if (op.type === 'equal') {
      map[op.b] = op.a + 1;
      consumed = op.a + 1;
      deleted = [];
      inserted = 0;
    } else if (op.type === 'delete') {
      deleted.push(op.a + 1);
      consumed = op.a + 1;
    } else {
      const to = deleted.length > 0 ? deleted[Math.min(inserted, deleted.length - 1)]! : Math.max(consumed, 1);
      map[op.b] = to;
      inserted++;
    }
  }
  const last = Math.max(splitLines(original).length, 1);
  return (line) => map[line - 1] ?? last;
}
