/**
 * The interactive decision of a round's notes, one at a time (docs/human.md, "On a
 * terminal"): a state machine, like `bounce grade`'s picker. `r` takes the reviewer's side,
 * `c` the composer's, `t` starts a line of the person's own text (Enter ends it, Esc drops
 * it), `b` goes back, `q` quits with nothing decided. Pure: the terminal is the caller's.
 */
import type { KeySession } from '../ui/key-reader.js';
import type { Decision } from './answers.js';
import type { Decided } from './decided-document.js';

export const DECIDE_KEYS = '[r]eviewer  [c]omposer  [t]ype your own  [b]ack  [q]uit  [?] help';
const HELP = [
  "r  the reviewer's side: the composer makes the reviewer's change",
  "c  the composer's side: the text stands as it is",
  't  your own text: type one line, Enter to end it, Esc to drop it; the composer integrates it',
  'b  back to the note before (its decision can be changed)',
  'q  quit: nothing is decided; bounce decide asks again',
].join('\n');

type Debated = Omit<Decided, 'decision'>;

export class DecisionSession implements KeySession {
  private at = 0;
  private typing: string | null = null;
  private readonly given = new Map<string, Decision>();
  private finished: 'done' | 'quit' | null = null;

  constructor(private readonly items: readonly Debated[]) {
    if (items.length === 0) this.finished = 'done';
  }

  get over(): boolean {
    return this.finished !== null;
  }

  /** Every decision, by finding id, once the session is done; null when the person quit. */
  get decisions(): ReadonlyMap<string, Decision> | null {
    return this.finished === 'done' ? this.given : null;
  }

  press(key: string): string {
    if (this.finished) return '';
    if (this.typing !== null) return this.type(key);
    const k = key.length === 1 ? key.toLowerCase() : key;
    if (k === 'q' || k === '\u0003' || k === '\u0004' || k === '\u001b') {
      this.finished = 'quit';
      return 'quit: nothing decided\n';
    }
    if (k === '?' || k === 'h') return `${HELP}\n`;
    if (k === 'b' || k === '\u007f' || k === '\b' || k === '\u001b[D') {
      if (this.at === 0) return '(this is the first note)\n';
      this.at -= 1;
      return `back\n${this.screen()}`;
    }
    if (k === 'r') return this.decide({ side: 'reviewer' }, 'reviewer');
    if (k === 'c') return this.decide({ side: 'composer' }, 'composer');
    if (k === 't') {
      this.typing = '';
      return 'your text (Enter ends it, Esc drops it): ';
    }
    return `(${JSON.stringify(key)} does nothing here: ${DECIDE_KEYS})\n`;
  }

  private type(key: string): string {
    const text = this.typing ?? '';
    if (key === '\r' || key === '\n') {
      const line = text.replace(/\s+/g, ' ').trim();
      if (line === '') return '\n(the text is empty: type it, or Esc)\nyour text: ';
      this.typing = null;
      return this.decide({ side: 'own', text: line }, '');
    }
    if (key === '\u001b' || key === '\u0003') {
      this.typing = null;
      return `\n(dropped)\n${this.screen()}`;
    }
    if (key === '\u007f' || key === '\b') {
      if (text === '') return '';
      this.typing = [...text].slice(0, -1).join('');
      return '\b \b';
    }
    if (key.startsWith('\u001b') || /[\u0000-\u001f]/.test(key)) return '';
    this.typing = text + key;
    return key;
  }

  private decide(decision: Decision, said: string): string {
    const item = this.items[this.at]!;
    this.given.set(item.note.id, decision);
    this.at += 1;
    const echo = said ? `${said}\n` : '\n';
    if (this.at >= this.items.length) {
      this.finished = 'done';
      return echo;
    }
    return `${echo}${this.screen()}`;
  }

  /** The note at hand: where it stands, the passage, both sides, the decision so far, the keys. */
  screen(): string {
    const item = this.items[this.at];
    if (!item) return '';
    const { note } = item;
    const [from, to] = note.lineRange;
    const width = String(note.passage.at(-1)?.line ?? to).length;
    const passage = note.passage.map((l) => `  ${l.line >= from && l.line <= to ? '>' : ' '} ${String(l.line).padStart(width)} | ${l.text}`);
    const now = this.given.get(note.id);
    const decided = now ? `  decided: ${now.side === 'own' ? `your text: ${now.text}` : `the ${now.side}'s side`}` : '  decided: not yet';
    return [
      '',
      `note ${this.at + 1} of ${this.items.length}: ${note.kind}, raised by pass ${note.pass} (${note.role} ${note.agent}); ${note.next}`,
      `  ${note.id}  ${note.document}, line${from === to ? ` ${from}` : `s ${from}-${to}`}`,
      ...passage,
      `  reviewer: ${item.alternative}`,
      `  composer: ${item.counter}`,
      decided,
      `${DECIDE_KEYS} > `,
    ].join('\n');
  }
}
