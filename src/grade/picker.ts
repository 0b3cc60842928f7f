import type { GradeVerdict } from '../vocabulary.js';
import type { GradableFinding } from './gradable.js';

/** What a key does in the picker (docs/grading.md, "On a terminal"). */
export type PickerAction = { verdict: GradeVerdict } | 'back' | 'quit' | 'help';

const KEYS: Record<string, PickerAction> = {
  a: { verdict: 'accepted' },
  r: { verdict: 'rejected' },
  s: { verdict: 'skipped' },
  b: 'back',
  '\u007f': 'back', // backspace
  '\b': 'back',
  '\u001b[D': 'back', // left arrow
  q: 'quit',
  '\u0003': 'quit', // Ctrl-C: the terminal is raw, so it reaches bounce as a key
  '\u0004': 'quit', // Ctrl-D
  '\u001b': 'quit', // Esc
  '?': 'help',
  h: 'help',
};

export const KEY_HELP = '[a]ccept  [r]eject  [s]kip  [b]ack  [q]uit  [?] help';
const HELP = [
  'a  accept: the note was right, worth raising',
  'r  reject: the note was wrong, or not worth raising',
  's  skip: no verdict (left out of precision)',
  'b  back to the finding before (its verdict can be changed)',
  'q  quit: every verdict given so far is saved; bounce grade again goes on from here',
].join('\n');

/** The keys in one chunk read from a raw terminal: an escape sequence (an arrow) is one key. */
export function splitKeys(chunk: string): string[] {
  const keys: string[] = [];
  for (let i = 0; i < chunk.length; ) {
    const seq = /^\u001b\[[0-9;]*[A-Za-z~]/.exec(chunk.slice(i));
    const key = seq ? seq[0] : chunk[i]!;
    keys.push(key);
    i += key.length;
  }
  return keys;
}

export const actionOf = (key: string): PickerAction | null => KEYS[key.length === 1 ? key.toLowerCase() : key] ?? null;

/**
 * The interactive grading of a run's findings, one at a time, as a state machine: `press` takes
 * one key and calls `save` with each verdict as it is given (so quitting, or a crash, loses
 * none), and `screen` is what the terminal shows. Pure: the terminal is the caller's.
 */
export class GradingSession {
  private at = 0;
  private readonly given = new Map<string, GradeVerdict>();
  private finished: 'done' | 'quit' | null = null;

  constructor(
    private readonly items: readonly GradableFinding[],
    /** The verdicts the records hold already, shown beside each finding. */
    private readonly earlier: ReadonlyMap<string, GradeVerdict>,
    private readonly save: (item: GradableFinding, verdict: GradeVerdict) => void,
  ) {
    if (items.length === 0) this.finished = 'done';
  }

  get state(): 'grading' | 'done' | 'quit' {
    return this.finished ?? 'grading';
  }

  /** Whether the session is done or the person quit (src/ui/key-reader.ts reads keys until then). */
  get over(): boolean {
    return this.finished !== null;
  }

  /** The verdicts given in this session, by finding id. */
  get verdicts(): ReadonlyMap<string, GradeVerdict> {
    return this.given;
  }

  /** Applies one key; returns the text to print in answer (empty for nothing). */
  press(key: string): string {
    if (this.finished) return '';
    const action = actionOf(key);
    if (action === null) return `(${JSON.stringify(key)} does nothing here: ${KEY_HELP})\n`;
    if (action === 'help') return `${HELP}\n`;
    if (action === 'quit') {
      this.finished = 'quit';
      return 'quit\n';
    }
    if (action === 'back') {
      if (this.at === 0) return '(this is the first finding)\n';
      this.at -= 1;
      return `back\n${this.screen()}`;
    }
    const item = this.items[this.at]!;
    this.save(item, action.verdict);
    this.given.set(item.id, action.verdict);
    this.at += 1;
    if (this.at >= this.items.length) {
      this.finished = 'done';
      return `${action.verdict}\n`;
    }
    return `${action.verdict}\n${this.screen()}`;
  }

  /** The finding at hand: where it is, the passage, what the run did to it, its verdicts, the keys. */
  screen(): string {
    const item = this.items[this.at];
    if (!item) return '';
    const [from, to] = item.lineRange;
    const width = String(item.passage.at(-1)?.line ?? to).length;
    const passage = item.passage.map((l) => `  ${l.line >= from && l.line <= to ? '>' : ' '} ${String(l.line).padStart(width)} | ${l.text}`);
    const now = this.given.get(item.id) ?? null;
    const before = this.earlier.get(item.id) ?? null;
    const verdict = now ? `verdict: ${now} (given now)` : before ? `verdict: ${before} (given earlier)` : 'verdict: none yet';
    return [
      '',
      `finding ${this.at + 1} of ${this.items.length}: ${item.kind}, raised by pass ${item.pass} (${item.role} ${item.agent})`,
      `  ${item.id}  ${item.document}, line${from === to ? ` ${from}` : `s ${from}-${to}`}`,
      ...passage,
      `  then: ${item.next}`,
      `  ${verdict}`,
      `${KEY_HELP} > `,
    ].join('\n');
  }
}
