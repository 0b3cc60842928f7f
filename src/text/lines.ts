/** Lines of a text without splitting it: a count, and a view that cuts a line out only when asked. */

/** The number of lines of `text`, a final newline ending the last one rather than starting another. */
export function countLines(text: string): number {
  if (text === '') return 0;
  let breaks = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) breaks++;
  return breaks + 1 - (text.endsWith('\n') ? 1 : 0);
}

/** A document's lines, 0-based: an array, or a view that cuts a line out only when asked. */
export interface Lines {
  readonly length: number;
  at(index: number): string | undefined;
}

/** The lines of `text` (split on LF, a CR before it dropped) without building them all. */
export function lineView(text: string): Lines {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return {
    length: starts.length,
    at(index) {
      const start = starts[index];
      if (start === undefined) return undefined;
      const next = starts[index + 1];
      const line = text.slice(start, next === undefined ? text.length : next - 1);
      return line.endsWith('\r') ? line.slice(0, -1) : line;
    },
  };
}

/** `text` without a leading byte order mark: what the scanner reads, and what every position in a note counts from. */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
