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
      const start = offset === 0 ? 0 : Math.max(source.lastIndexOf('\n', offset - 1), source.lastIndexOf('\r', offset - 1)) + 1;
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
