/**
 * Note lint: each note checked against the Bounce Protocol's conformance rules
 * (BOUNCE-PROTOCOL.md "Notes" and "Where a note goes"). Pure functions of a note and the
 * text it was scanned from; the heuristics, with examples, are documented in docs/lint.md.
 */
import type { Note } from './scanner.js';

export interface LintRule {
  id: string;
  /** PascalCase, for formats that show a name beside the id. */
  name: string;
  /** One line: what a breaking note lacks. */
  summary: string;
  /** How to fix a note that breaks it. */
  help: string;
  /** The complaint for a note that breaks the rule, or null when it conforms. */
  check(note: Note, source: string): string | null;
}

export interface LintProblem {
  rule: string;
  note: Note;
  message: string;
}

/** The note's words after its marker (and an emphasis closer such as the `**` of `**[CLARIFY]**`). */
export function noteBody(note: Note): string {
  return note.text
    .slice(note.kind.length + 2)
    .replace(/^[*_]+/, '')
    .trim();
}

const HAS_WORDS = /[\p{L}\p{N}]/u;
// Words that put forward what to write: a proposal, a replacement, an imperative edit.
const PROPOSAL =
  /\b(?:instead|rather|replace|use|should|must|change|suggest|propose|recommend|prefer|set|cap|limit|make|require|add|remove|drop|keep|move|rename|say|write|state|split|merge|delete|allow|raise|lower|reduce|increase|switch|define|specify|mention|document|better)\b/i;
// Two labelled readings: (A) ... (B) ..., (1) ... (2) ...
const LABELLED = /\((?:[A-Za-z]|\d{1,2})\)[\s\S]*\((?:[A-Za-z]|\d{1,2})\)/;
const ALTERNATIVE = /\b(?:or|versus|vs)\b/i;
// A yes/no question: a sentence that opens with an auxiliary verb and ends with `?`.
const YES_NO = /(?:^|[.!?:]\s+)["'“]?(?:is|are|was|were|do|does|did|should|shall|can|could|will|would|must|may|has|have|had)\b[^.!?]*\?/i;

function empty(note: Note): boolean {
  return !HAS_WORDS.test(noteBody(note));
}

export const LINT_RULES: readonly LintRule[] = [
  {
    id: 'empty-note',
    name: 'EmptyNote',
    summary: 'a marker with no text after it',
    help: 'say what is wrong or unclear after the marker, or delete the marker',
    check: (note) => (empty(note) ? `[${note.kind}] has no text` : null),
  },
  {
    id: 'dissent-only',
    name: 'DissentOnly',
    summary: 'a [CONTESTED] note that objects without a concrete alternative',
    help: 'add what to write instead ("Cap retries at two.", "Use 7 days instead.")',
    check: (note) =>
      note.kind === 'CONTESTED' && !empty(note) && !PROPOSAL.test(noteBody(note)) ? '[CONTESTED] says what is wrong but not what to write instead' : null,
  },
  {
    id: 'open-ended',
    name: 'OpenEndedClarify',
    summary: 'a [CLARIFY] note with neither two readings nor a question with a closed set of answers',
    help: 'spell out the readings ("(A) ... (B) ...") or ask a question with a finite answer ("... or ...?", a yes/no question)',
    check: (note) => {
      if (note.kind !== 'CLARIFY' || empty(note)) return null;
      const body = noteBody(note);
      const closed = LABELLED.test(body) || ALTERNATIVE.test(body) || YES_NO.test(body);
      return closed ? null : '[CLARIFY] asks an open question: name two readings or the possible answers';
    },
  },
  {
    id: 'misplaced',
    name: 'MisplacedNote',
    summary: 'a note that is not on its own line directly below the text it refers to',
    help: 'move the note to a line of its own right below the passage it is about',
    check: (note) => {
      if (!note.canonical) return `[${note.kind}] does not start its line`;
      if (note.refersTo === null) return `[${note.kind}] has no text above it to refer to`;
      if (note.refersTo.line !== note.line - 1) return `[${note.kind}] is separated by a blank line from the text it refers to (line ${note.refersTo.line})`;
      return null;
    },
  },
  {
    id: 'marker-spelling',
    name: 'MarkerSpelling',
    summary: 'a marker not written as the canonical upper-case [KIND] with plain brackets',
    help: 'write the marker in upper case with plain brackets, e.g. [CLARIFY]',
    check: (note, source) => {
      const canonical = `[${note.kind}]`;
      if (note.disguise !== undefined) return `${canonical} is disguised by ${note.disguise}: it reads as a note, and counts as one`;
      let slashes = 0;
      while (source.charCodeAt(note.offset - 1 - slashes) === 92) slashes++;
      if (source.startsWith(canonical, note.offset) && slashes % 2 === 0) return null;
      const written = slashes % 2 === 1 ? '\\' : '';
      const end = source.indexOf(']', note.offset);
      const shown = end === -1 || end - note.offset > 40 ? source.slice(note.offset, note.offset + canonical.length) : source.slice(note.offset, end + 1);
      return `${JSON.stringify(written + shown)} is not the canonical spelling ${canonical}`;
    },
  },
];

export const LINT_RULE_IDS: readonly string[] = LINT_RULES.map((r) => r.id);

/** Problems of one note, in rule order; `rules` limits the check to those ids (default: all). */
export function lintNote(note: Note, source: string, rules: readonly string[] = LINT_RULE_IDS): LintProblem[] {
  const out: LintProblem[] = [];
  for (const rule of LINT_RULES) {
    if (!rules.includes(rule.id)) continue;
    const message = rule.check(note, source);
    if (message !== null) out.push({ rule: rule.id, note, message });
  }
  return out;
}

/** Problems of every note scanned from `source`, in note order. */
export function lintNotes(notes: readonly Note[], source: string, rules: readonly string[] = LINT_RULE_IDS): LintProblem[] {
  return notes.flatMap((n) => lintNote(n, source, rules));
}

/** Unknown rule ids, so the caller can name them with the known ones. */
export function unknownRules(ids: readonly string[]): string[] {
  return ids.filter((id) => !LINT_RULE_IDS.includes(id));
}
