/**
 * The pure half of the scripted model server: find the bounce document in a prompt, work
 * out role / final / repair, and compute the reply a behaviour produces. No I/O here.
 */

/** What a scripted turn does. Strings are named behaviours; objects are parameterised. */
export type Behaviour =
  | 'edit'
  | 'leave-note'
  | 'summary'
  | 'empty'
  | 'truncate'
  | 'stall'
  | 'wrap-fence'
  /** HTTP 200 and a stream that carries only an error event in the API's shape (a failure reported mid-stream). */
  | { streamError: string }
  /** What `'edit'` does, sent as search/replace blocks (for --edit-format edits). */
  | 'edit-blocks'
  /** An HTTP error: `headers` are added to the response, `body` replaces the API's error shape. */
  | { status: number; retryAfter?: number; message?: string; headers?: Record<string, string>; body?: unknown }
  | { reply: string; truncated?: boolean };

/** What the server read from a prompt. `document` is null when the prompt carries none. */
export interface Turn {
  document: string | null;
  hex: string | null;
  role: 'reviewer' | 'composer' | null;
  final: boolean;
  repair: boolean;
}

/** The note the default reviewer inserts (a paragraph of its own). */
export const CONTESTED_NOTE = '[CONTESTED] This point is stated too vaguely. Use a concrete example instead.';
/** The note `'leave-note'` appends. */
export const CLARIFY_NOTE = '[CLARIFY] Which one? (A) x (B) y';

const OPEN_RE = /^<<<BOUNCE-DOCUMENT-([0-9A-Fa-f]+)>>>[ \t]*\r?$/gm;
const NOTE_LINE_RE = /^\s*\[(contested|clarify)\]/i;
const FENCE_RE = /^\s{0,3}(`{3,}|~{3,})/;

/** Deterministic token estimate used for every usage number the server reports. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * Read a prompt. The document is the text between the LAST opening delimiter line that has
 * a matching `<<<END-BOUNCE-DOCUMENT-{hex}>>>` line after it (one newline either side
 * belongs to the delimiters). Outside that document: role is the first `Role: reviewer|composer`,
 * final is the text `FINAL PASS`, repair the text `REPAIR` (both case-sensitive).
 */
export function readTurn(prompt: string): Turn {
  let document: string | null = null;
  let hex: string | null = null;
  let frame = prompt; // the prompt without the document, so a document cannot fake role or flags
  for (const m of prompt.matchAll(OPEN_RE)) {
    const start = (m.index ?? 0) + m[0].length + 1;
    const close = new RegExp(`^<<<END-BOUNCE-DOCUMENT-${m[1]}>>>[ \\t]*\\r?$`, 'm');
    const rest = prompt.slice(start);
    const end = close.exec(rest);
    if (!end) continue;
    document = rest.slice(0, end.index).replace(/\r?\n$/, '');
    hex = m[1] ?? null;
    frame = prompt.slice(0, m.index ?? 0) + prompt.slice(start + end.index + end[0].length);
  }
  const role = /\bRole:\s*(reviewer|composer)\b/i.exec(frame)?.[1]?.toLowerCase() as Turn['role'] | undefined;
  return { document, hex, role: role ?? null, final: frame.includes('FINAL PASS'), repair: frame.includes('REPAIR') };
}

/** Insert `note` as its own paragraph after the first non-blank paragraph outside code fences. */
export function insertNote(doc: string, note: string): string {
  const lines = doc.split('\n');
  let fence: string | null = null;
  let seenText = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const f = FENCE_RE.exec(line)?.[1];
    if (f && (fence === null || f.startsWith(fence))) fence = fence === null ? f : null;
    if (line.trim() !== '') seenText = true;
    else if (seenText && fence === null) {
      lines.splice(i, 0, '', note);
      return lines.join('\n');
    }
  }
  const body = doc.replace(/\s+$/, '');
  return `${body}${body === '' ? '' : '\n\n'}${note}\n`;
}

/**
 * Remove every note: a line (outside code fences) whose text starts with `[CONTESTED]` or
 * `[CLARIFY]` (any case), together with the rest of its paragraph and one blank separator.
 */
export function removeNotes(doc: string): string {
  const lines = doc.split('\n');
  const out: string[] = [];
  let fence: string | null = null;
  for (let i = 0; i < lines.length; ) {
    const line = lines[i] ?? '';
    const f = FENCE_RE.exec(line)?.[1];
    if (f && (fence === null || f.startsWith(fence))) fence = fence === null ? f : null;
    if (fence === null && NOTE_LINE_RE.test(line)) {
      while (i < lines.length && (lines[i] ?? '').trim() !== '') i++;
      if (out.length === 0 || (out[out.length - 1] ?? '').trim() === '') {
        while (i < lines.length && (lines[i] ?? '').trim() === '') i++;
      }
      if (i >= lines.length && !doc.endsWith('\n')) {
        while (out.length > 0 && (out[out.length - 1] ?? '').trim() === '') out.pop();
      }
      continue;
    }
    out.push(line);
    i++;
  }
  return out.join('\n');
}

/** A one-sentence summary: far under 30% of the words of any real document. */
export function summarise(doc: string): string {
  const first =
    doc
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.replace(/^[#>\s*-]+/, '')
      .trim() ?? 'nothing';
  const words = doc.split(/\s+/).filter(Boolean).length;
  return `In short, this ${words}-word document is about ${first.split(/\s+/).slice(0, 8).join(' ')}.`;
}

const searchBlock = (search: string[], replace: string[]): string => ['<<<<<<< SEARCH', ...search, '=======', ...replace, '>>>>>>> REPLACE'].join('\n');

/**
 * `'edit'` as edit blocks, written out by hand: a reviewer's block quotes the line its note
 * goes under (the one insertNote picks) and adds the note below it; any other turn sends one
 * block per note line, quoting it with the blank line above and replacing both with nothing.
 */
export function editBlocks(turn: Turn & { document: string }): string {
  const lines = turn.document.split('\n');
  if (turn.role === 'reviewer' && !turn.final && !turn.repair) {
    const at = lines.findIndex((l, i) => i > 0 && l.trim() === '' && (lines[i - 1] ?? '').trim() !== '');
    const anchor = lines[at - 1] ?? '';
    return searchBlock([anchor], [anchor, '', CONTESTED_NOTE]);
  }
  const notes = lines.filter((l) => NOTE_LINE_RE.test(l));
  return notes.map((note) => searchBlock(['', note], [])).join('\n\n');
}

export interface Reply {
  text: string;
  truncated: boolean;
  /** A tool call the model makes instead of answering (Anthropic's `tool_use`): see ModelServer.callTools. */
  toolUse?: { id: string; name: string; input: unknown };
}

/**
 * The reply for a turn that carries a document, for every behaviour except the HTTP-level
 * ones (`status`, `stall`), which the server handles before calling this.
 */
export function replyFor(turn: Turn & { document: string }, behaviour: Behaviour): Reply {
  const doc = turn.document;
  const edit = (): string => (turn.role === 'reviewer' && !turn.final && !turn.repair ? insertNote(doc, CONTESTED_NOTE) : removeNotes(doc));
  if (typeof behaviour === 'object') {
    if ('reply' in behaviour) return { text: behaviour.reply, truncated: behaviour.truncated ?? false };
    return { text: edit(), truncated: false };
  }
  switch (behaviour) {
    case 'leave-note':
      return { text: `${doc.replace(/\s+$/, '')}\n\n${CLARIFY_NOTE}\n`, truncated: false };
    case 'summary':
      return { text: summarise(doc), truncated: false };
    case 'empty':
      return { text: '', truncated: false };
    case 'truncate':
      return { text: doc.slice(0, Math.floor(doc.length / 2)), truncated: true };
    case 'edit-blocks':
      return { text: editBlocks(turn), truncated: false };
    case 'wrap-fence':
      return { text: `\`\`\`markdown\n${edit().replace(/\n$/, '')}\n\`\`\`\n`, truncated: false };
    default:
      return { text: edit(), truncated: false };
  }
}
