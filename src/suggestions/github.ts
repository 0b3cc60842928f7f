/**
 * Markdown review comments, one a hunk, each with a ```suggestion block of whole lines (what
 * GitHub's suggestions replace), for a tool that posts them on a pull request itself.
 */
import { wholeLines } from './hunks.js';
import { type RunSuggestions, suggestionMessage } from './run-suggestions.js';

/** A fence longer than any run of backticks in the text, as GitHub wants around a suggestion. */
function fence(lines: readonly string[]): string {
  const longest = Math.max(2, ...lines.map((l) => Math.max(0, ...[...l.matchAll(/`+/g)].map((m) => m[0].length))));
  return '`'.repeat(longest + 1);
}

/** One Markdown review comment a hunk: a machine-readable header, the message, a suggestion block of whole lines. */
export function githubSuggestions(s: RunSuggestions, path: string): string {
  return s.hunks
    .map(({ hunk, causes }) => {
      const w = wholeLines(s.original, hunk);
      const f = fence(w.lines);
      const where = w.start === w.end ? `line ${w.start}` : `lines ${w.start}-${w.end}`;
      const body = w.lines.length === 0 ? '' : `${w.lines.join('\n')}\n`;
      const message = suggestionMessage(s.runId, causes).split('\n').join('  \n');
      return `<!-- bounce-suggestion path=${JSON.stringify(path)} start_line=${w.start} line=${w.end} -->\n**${path}** ${where}\n\n${message}\n\n${f}suggestion\n${body}${f}\n`;
    })
    .join('\n');
}
