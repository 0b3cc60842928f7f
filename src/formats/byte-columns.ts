/**
 * Columns counted in UTF-8 bytes, as the Reviewdog Diagnostic Format counts them (bounce's
 * other formats count UTF-16 code units): `a𐐀b` has `b` at column 6, not 4.
 */

/** 1-based UTF-8 byte columns of a position and of the end of its line (exclusive: the line break's column). */
export interface ByteColumns {
  column: number;
  endColumn: number;
}

const BREAK = /\r|\n/g;

/**
 * The byte columns of each offset (0-based UTF-16 indices into `source`, ascending, as the
 * scanner gives its notes), in one walk: many notes on one long line cost that line once.
 */
export function byteColumns(source: string, offsets: readonly number[]): ByteColumns[] {
  const out: ByteColumns[] = [];
  let lineEnd = -1;
  let cursor = 0;
  let bytes = 0;
  let endColumn = 1;
  for (const offset of offsets) {
    if (offset < cursor || offset > lineEnd) {
      // A new line: from its start, which is after the last break before the offset.
      const start = lineStart(source, offset);
      BREAK.lastIndex = offset;
      lineEnd = BREAK.exec(source)?.index ?? source.length;
      cursor = start;
      bytes = 0;
      endColumn = 0;
    }
    bytes += Buffer.byteLength(source.slice(cursor, offset));
    cursor = offset;
    if (endColumn === 0) endColumn = bytes + Buffer.byteLength(source.slice(offset, lineEnd)) + 1;
    out.push({ column: bytes + 1, endColumn });
  }
  return out;
}

/**
 * Where the line holding `offset` starts: after the last `\n` or `\r` before it, looked for
 * back from the offset only as far as the line goes. (`lastIndexOf('\r')` in a file with no
 * `\r` reads back to its start for every line: 150,000 notes took minutes.)
 */
function lineStart(source: string, offset: number): number {
  for (let i = offset - 1; i >= 0; i--) {
    const c = source.charCodeAt(i);
    if (c === 10 || c === 13) return i + 1;
  }
  return 0;
}
