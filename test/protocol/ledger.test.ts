import { describe, expect, it } from 'vitest';
import { INPUT_ORIGIN, judgeResolved, NoteOrigins } from '../../src/protocol/ledger.js';
import { diffNotes, scanNotes } from '../../src/protocol/scanner.js';

const md = (text: string) => ({ text, notes: scanNotes(text, { syntax: 'markdown' }), markdown: true });
const plain = (text: string) => ({ text, notes: scanNotes(text, { syntax: 'plain' }), markdown: false });

/** The fate of each note the pass resolved, as `KIND fate` in the order of the sent document. */
function fates(before: string, after: string, read = md): string[] {
  const sent = read(before);
  const accepted = read(after);
  const { resolved } = diffNotes(sent.notes, accepted.notes);
  return judgeResolved(sent, resolved, accepted).map((j) => `${j.note.kind} ${j.fate}`);
}

const NOTED = `# Retry policy

The classifier retries transient errors up to 5 times.
[CONTESTED] Five attempts is too aggressive for a paid call. Cap at 2 attempts.

Rate-limit all endpoints.
[CLARIFY] Does "all endpoints" include /metrics? (A) yes. (B) no,
exempt observability.

Logs are kept for a year.
`;

describe('judgeResolved', () => {
  it('acted: the paragraph above the note was rewritten', () => {
    const after = NOTED.replace('up to 5 times.\n[CONTESTED] Five attempts is too aggressive for a paid call. Cap at 2 attempts.\n', 'at most twice.\n');
    expect(fates(NOTED, after)).toEqual(['CONTESTED acted']);
  });

  it('dismissed: the note was deleted and its paragraph left as it was', () => {
    const after = NOTED.replace('[CONTESTED] Five attempts is too aggressive for a paid call. Cap at 2 attempts.\n', '');
    expect(fates(NOTED, after)).toEqual(['CONTESTED dismissed']);
  });

  it('a note that wraps over several lines is taken out whole: deleting it alone is a dismissal', () => {
    const after = NOTED.replace('[CLARIFY] Does "all endpoints" include /metrics? (A) yes. (B) no,\nexempt observability.\n', '');
    expect(fates(NOTED, after)).toEqual(['CLARIFY dismissed']);
  });

  it('acted and dismissed in one pass, each judged by its own paragraph', () => {
    const after = `# Retry policy

The classifier retries transient errors up to 5 times.

Rate-limit every endpoint except /metrics.

Logs are kept for a year.
`;
    expect(fates(NOTED, after)).toEqual(['CONTESTED dismissed', 'CLARIFY acted']);
  });

  it('acted: an answer inserted where the note stood, the paragraph above unchanged', () => {
    const after = NOTED.replace(
      '[CLARIFY] Does "all endpoints" include /metrics? (A) yes. (B) no,\nexempt observability.\n',
      '\n/metrics and /health are exempt: observability must not be throttled.\n',
    );
    expect(fates(NOTED, after)).toEqual(['CLARIFY acted']);
  });

  it('a change elsewhere in the document does not count for the note', () => {
    const after = NOTED.replace('[CONTESTED] Five attempts is too aggressive for a paid call. Cap at 2 attempts.\n', '').replace(
      'Logs are kept for a year.',
      'Logs are kept for 90 days.',
    );
    expect(fates(NOTED, after)).toEqual(['CONTESTED dismissed']);
  });

  it('rewrapping without changing a word is not a change; changing a word is', () => {
    const long = 'Tokens expire after\n30 idle days.\n[CONTESTED] Too long. Make it 7 days.\n';
    expect(fates(long, 'Tokens expire after\n30   idle days.\n')).toEqual(['CONTESTED dismissed']);
    expect(fates(long, 'Tokens expire after\n7 idle days.\n')).toEqual(['CONTESTED acted']);
    // The protocol's first example, row by row.
    const sessions = 'Sessions expire after 30 days.\n[CONTESTED] Too long for a stolen token. Expire after 7 idle days.\n';
    expect(fates(sessions, 'Sessions expire\nafter 30 days.\n')).toEqual(['CONTESTED dismissed']);
    expect(fates(sessions, 'Sessions expire\n\nafter 30 days.\n')).toEqual(['CONTESTED acted']);
  });

  it('an edited note is the old one resolved (judged by the text) and a new one added', () => {
    const edited = NOTED.replace('Cap at 2 attempts.', 'Cap at 3 attempts.');
    const sent = md(NOTED);
    const accepted = md(edited);
    const { added, resolved } = diffNotes(sent.notes, accepted.notes);
    expect(added.map((n) => n.text)).toEqual(['[CONTESTED] Five attempts is too aggressive for a paid call. Cap at 3 attempts.']);
    expect(judgeResolved(sent, resolved, accepted).map((j) => [j.note.text, j.fate])).toEqual([
      ['[CONTESTED] Five attempts is too aggressive for a paid call. Cap at 2 attempts.', 'dismissed'],
    ]);
    // The same edit with the text changed too: the old note was acted on.
    const both = edited.replace('up to 5 times', 'up to 3 times');
    expect(fates(NOTED, both)).toEqual(['CONTESTED acted']);
  });

  it('names the lines of the text the note refers to, in the document sent', () => {
    const sent = md(NOTED);
    const accepted = md(NOTED.replace(/\[CLARIFY\][\s\S]*?observability\.\n/, ''));
    const { resolved } = diffNotes(sent.notes, accepted.notes);
    expect(judgeResolved(sent, resolved, accepted).map((j) => j.refersTo)).toEqual([[6, 6]]);
  });

  it('a whole paragraph is the referent: a change to its first line counts for a note under its last', () => {
    const para = 'One rule.\nTwo rules.\n[CLARIFY] Which: (A) one or (B) two?\n\nEnd.\n';
    expect(fates(para, 'Three rules.\nTwo rules.\n\nEnd.\n')).toEqual(['CLARIFY acted']);
    expect(fates(para, 'One rule.\nTwo rules.\n\nEnd.\n')).toEqual(['CLARIFY dismissed']);
  });

  it('a note in mid-line refers to the text before it on its line', () => {
    const inline = 'Intro.\n\nDeploys run at noon [CLARIFY] UTC or local? (A) UTC (B) local\n\nEnd.\n';
    expect(fates(inline, 'Intro.\n\nDeploys run at noon\n\nEnd.\n')).toEqual(['CLARIFY dismissed']);
    expect(fates(inline, 'Intro.\n\nDeploys run at 12:00 UTC.\n\nEnd.\n')).toEqual(['CLARIFY acted']);
  });

  it('a note under a heading refers to the heading and the paragraph after it', () => {
    const under = '# Title\n\n## Limits\n[CONTESTED] The limits are missing. Add a table of limits.\n\nNo limits yet.\n\nEnd.\n';
    expect(fates(under, '# Title\n\n## Limits\n\n| limit | value |\n|---|---|\n| rps | 10 |\n\nEnd.\n')).toEqual(['CONTESTED acted']);
    expect(fates(under, '# Title\n\n## Limits\n\nNo limits yet.\n\nEnd.\n')).toEqual(['CONTESTED dismissed']);
  });

  it('a note in a list refers to its item, not the items beside it', () => {
    const list = '- Retry twice.\n- Log every error.\n  [CLARIFY] At which level? (A) warn (B) error\n- Alert on-call.\n';
    expect(fates(list, '- Retry twice.\n- Log every error.\n- Page on-call.\n')).toEqual(['CLARIFY dismissed']);
    expect(fates(list, '- Retry twice.\n- Log every error at level error.\n- Alert on-call.\n')).toEqual(['CLARIFY acted']);
  });

  it('a note at the top of a document refers to the paragraph after it', () => {
    const top = '[CLARIFY] Is this a draft? (A) yes (B) no\n\nThe plan is final.\n';
    expect(fates(top, 'The plan is final.\n')).toEqual(['CLARIFY dismissed']);
    expect(fates(top, 'The plan is a draft.\n')).toEqual(['CLARIFY acted']);
  });

  it('notes stacked under one paragraph share it as their referent', () => {
    const stacked = 'Ship on Monday.\n[CONTESTED] Monday is a holiday. Ship on Tuesday.\n[CLARIFY] Which time zone? (A) UTC (B) local\n';
    expect(fates(stacked, 'Ship on Tuesday.\n')).toEqual(['CONTESTED acted', 'CLARIFY acted']);
    expect(fates(stacked, 'Ship on Monday.\n')).toEqual(['CONTESTED dismissed', 'CLARIFY dismissed']);
  });

  it('reads CRLF documents, a BOM and plain text the same way', () => {
    const crlf = '\ufeffShip on Monday.\r\n[CONTESTED] Ship on Tuesday instead, Monday is a holiday.\r\n\r\nEnd.\r\n';
    expect(fates(crlf, '\ufeffShip on Monday.\r\n\r\nEnd.\r\n')).toEqual(['CONTESTED dismissed']);
    expect(fates(crlf, '\ufeffShip on Tuesday.\r\n\r\nEnd.\r\n')).toEqual(['CONTESTED acted']);
    expect(fates('Ship on Monday.\n[CONTESTED] Tuesday.\n', 'Ship on Monday.\n', plain)).toEqual(['CONTESTED dismissed']);
  });

  it('a document with nothing but the note: acted only if text was written', () => {
    expect(fates('[CLARIFY] What goes here? (A) a plan (B) a list\n', '')).toEqual(['CLARIFY dismissed']);
    expect(fates('[CLARIFY] What goes here? (A) a plan (B) a list\n', 'A plan.\n')).toEqual(['CLARIFY acted']);
  });

  it('a note under a heading with blank lines around it, deleted with them: dismissed (the mock reviewer wrote this shape)', () => {
    const original = '# Plan\n\nShip on Monday.\n\nEnd.\n';
    const sent = '# Plan\n\n[CONTESTED] The opening is vague about scope. State what is in scope.\n\nShip on Monday.\n\nEnd.\n';
    expect(fates(sent, original)).toEqual(['CONTESTED dismissed']);
    // Only the note's line deleted, both blank lines left: the same text.
    expect(fates(sent, sent.replace(/\[CONTESTED\].*\n/, ''))).toEqual(['CONTESTED dismissed']);
    expect(fates(sent, original.replace('Monday', 'Tuesday'))).toEqual(['CONTESTED acted']);
    expect(fates(sent, original.replace('# Plan', '# Rollout plan'))).toEqual(['CONTESTED acted']);
  });

  it('notes in the middle of a paragraph: the lines after them are the note where deleted and text where kept', () => {
    const original = 'Intro.\n\nDeploys run at noon.\nThey take an hour.\nRollback is manual.\n\nEnd.\n';
    const sent =
      'Intro.\n\nDeploys run at noon.\n[CLARIFY] Which zone? (A) UTC (B) local\nThey take an hour.\n[CONTESTED] Manual is slow. Automate it.\nRollback is manual.\n\nEnd.\n';
    // The scanner reads the rest of the paragraph as each note's text.
    expect(md(sent).notes.map((n) => n.text)).toEqual([
      '[CLARIFY] Which zone? (A) UTC (B) local They take an hour.',
      '[CONTESTED] Manual is slow. Automate it. Rollback is manual.',
    ]);
    expect(fates(sent, original)).toEqual(['CLARIFY dismissed', 'CONTESTED dismissed']);
    expect(fates(sent, original.replace('noon.', 'noon UTC.'))).toEqual(['CLARIFY acted', 'CONTESTED acted']);
    // A change below the first note only: the lines above it are the first note's referent.
    expect(fates(sent, original.replace('Rollback is manual.', 'Rollback is automatic.'))).toEqual(['CLARIFY dismissed', 'CONTESTED acted']);
    // The notes deleted with the lines they run on to: dismissed as well.
    expect(fates(sent, 'Intro.\n\nDeploys run at noon.\n\nEnd.\n')).toEqual(['CLARIFY dismissed', 'CONTESTED dismissed']);
  });

  it("the protocol's example of a note in mid-paragraph, row by row", () => {
    const sent = 'Deploys run at noon.\n[CLARIFY] Which zone? (A) UTC (B) local\nThey take an hour.\nRollback is manual.\n';
    expect(fates(sent, 'Deploys run at noon.\nThey take an hour.\nRollback is manual.\n')).toEqual(['CLARIFY dismissed']);
    expect(fates(sent, 'Deploys run at noon.\n\nThey take an hour.\nRollback is manual.\n')).toEqual(['CLARIFY dismissed']);
    expect(fates(sent, 'Deploys run at noon.\n')).toEqual(['CLARIFY dismissed']);
    expect(fates(sent, 'Deploys run at noon UTC.\nThey take an hour.\nRollback is manual.\n')).toEqual(['CLARIFY acted']);
    expect(fates(sent, 'Deploys run at noon.\nThey take two hours.\nRollback is manual.\n')).toEqual(['CLARIFY acted']);
    expect(fates(sent, 'Deploys run at noon.\nThey take an hour.\nRollback is automatic.\n')).toEqual(['CLARIFY dismissed']);
  });

  it('a note under a heading with the paragraph right below it refers to both; the wrapped note is not the paragraph', () => {
    const sent = '## Limits\n[CONTESTED] The limits are missing.\nAdd a table of limits.\n\nNo limits yet.\n\nEnd.\n';
    expect(fates(sent, '## Limits\n\nNo limits yet.\n\nEnd.\n')).toEqual(['CONTESTED dismissed']);
    expect(fates(sent, '## Limits\n\nTen requests a second.\n\nEnd.\n')).toEqual(['CONTESTED acted']);
    expect(fates(sent, '## Limits\n\nNo limits yet.\n\nThe end.\n')).toEqual(['CONTESTED dismissed']);
  });

  it('a paragraph right under a heading is a block of its own: a note below it does not refer to the heading', () => {
    const sent = '## Limits\nNo limits yet.\n[CLARIFY] Which: (A) none (B) unknown?\n\nEnd.\n';
    expect(fates(sent, '## Rate limits\nNo limits yet.\n\nEnd.\n')).toEqual(['CLARIFY dismissed']);
    expect(fates(sent, '## Limits\nNone.\n\nEnd.\n')).toEqual(['CLARIFY acted']);
  });

  it("YAML: a note in a trailing comment takes the comment's `#` with it", () => {
    const yaml = (text: string) => ({ text, notes: scanNotes(text, { syntax: 'yaml' }), markdown: false, yaml: true });
    const sent = 'service:\n  name: api  # [CLARIFY] Which api: (A) public (B) internal?\n  retries: 5\n# [CONTESTED] Too many. Use 2.\n';
    expect(fates(sent, 'service:\n  name: api\n  retries: 5\n', yaml)).toEqual(['CLARIFY dismissed', 'CONTESTED dismissed']);
    expect(fates(sent, 'service:\n  name: public-api\n  retries: 5\n', yaml)).toEqual(['CLARIFY acted', 'CONTESTED acted']);
    // A note that runs on in the comment lines below it: deleted whole, a dismissal.
    const wrapped = 'limits:\n  rps: 10\n  # [CONTESTED] Ten is too low for bursts.\n  # Use 50.\nend: true\n';
    expect(fates(wrapped, 'limits:\n  rps: 10\nend: true\n', yaml)).toEqual(['CONTESTED dismissed']);
  });

  it('a paragraph broken in two, or some of its words moved into the next paragraph, was acted on', () => {
    const one = 'Intro.\n\nTokens expire after 30 idle days and sessions end at logout.\n[CONTESTED] Two rules in one. Split them.\n\nEnd of it.\n';
    expect(fates(one, 'Intro.\n\nTokens expire after 30 idle days.\n\nSessions end at logout.\n\nEnd of it.\n')).toEqual(['CONTESTED acted']);
    // The paragraph returned as it was; then its last words moved into the next paragraph.
    expect(fates(one, 'Intro.\n\nTokens expire after 30 idle days and sessions end at logout.\n\nEnd of it.\n')).toEqual(['CONTESTED dismissed']);
    expect(fates(one, 'Intro.\n\nTokens expire after 30 idle days and\n\nsessions end at logout. End of it.\n')).toEqual(['CONTESTED acted']);
    const two = 'Tokens expire after 30 idle days.\nSessions end at logout.\n[CONTESTED] Two rules in one. Split them.\n';
    expect(fates(two, 'Tokens expire after 30 idle days.\n\nSessions end at logout.\n')).toEqual(['CONTESTED acted']);
    // A quote's paragraphs are broken by a line of only `>`.
    expect(fates(`> ${two.replace(/\n(?!$)/g, '\n> ')}`, '> Tokens expire after 30 idle days.\n>\n> Sessions end at logout.\n')).toEqual(['CONTESTED acted']);
  });

  it('a blank line left where a note stood is not a break of the paragraph: deleting the note so is a dismissal', () => {
    const mid = 'Retries: 5.\n[CONTESTED] Too many. Make it 2.\nBackoff doubles.\n[CLARIFY] From what base? (A) 1 s (B) 100 ms\n';
    expect(fates(mid, 'Retries: 5.\n\nBackoff doubles.\n')).toEqual(['CONTESTED dismissed', 'CLARIFY dismissed']);
    const inline = 'Deploys run at noon [CLARIFY] UTC or local? (A) UTC (B) local\nand last an hour.\n[CONTESTED] Say who approves them.\n';
    expect(fates(inline, 'Deploys run at noon\n\nand last an hour.\n')).toEqual(['CLARIFY dismissed', 'CONTESTED dismissed']);
    // A heading and the paragraph under it are two blocks already.
    // A note in mid-line: the text after it kept as a paragraph of its own.
    const midLine = 'Deploys run at noon [CLARIFY] Which zone? (A) UTC (B) local and take an hour.\n\nNext.\n';
    expect(fates(midLine, 'Deploys run at noon\n\nand take an hour.\n\nNext.\n')).toEqual(['CLARIFY dismissed']);
    expect(fates(midLine, 'Deploys run at noon UTC\n\nand take an hour.\n\nNext.\n')).toEqual(['CLARIFY acted']);
    const under = '## Limits\n[CONTESTED] Add the limits.\nNone yet.\n';
    expect(fates(under, '## Limits\n\nNone yet.\n')).toEqual(['CONTESTED dismissed']);
  });

  it('of two notes with one text, the one the pass deleted is judged, not the first', () => {
    const unit = '[CLARIFY] Which unit? (A) ms (B) s';
    const sent = `Timeout 5.\n${unit}\n\nDelay 6.\n${unit}\n`;
    expect(fates(sent, `Timeout 5 ms.\n\nDelay 6.\n${unit}\n`)).toEqual(['CLARIFY acted']);
    expect(fates(sent, `Timeout 5.\n\nDelay 6 s.\n${unit}\n`)).toEqual(['CLARIFY dismissed']);
  });

  it('a paragraph moved as it was is the same text: a dismissal, for its note and for the note of the paragraph it now follows', () => {
    const sent = 'We retry 5 times.\n[CONTESTED] Too many for a paid call. Use 2.\n\nNext para.\n';
    expect(fates(sent, 'Next para.\n\nWe retry 5 times.\n')).toEqual(['CONTESTED dismissed']);
    expect(fates(sent, 'Next para.\n\nWe retry 2 times.\n')).toEqual(['CONTESTED acted']);
    const three = 'Alpha rules.\n\nBeta rules.\n[CLARIFY] Which beta? (A) one (B) two\n\nGamma rules.\n[CONTESTED] Drop gamma.\n';
    expect(fates(three, 'Beta rules.\n\nAlpha rules.\n\nGamma rules.\n')).toEqual(['CLARIFY dismissed', 'CONTESTED dismissed']);
    expect(fates(three, 'Alpha rules.\n\nGamma rules.\n\nBeta rules.\n')).toEqual(['CLARIFY dismissed', 'CONTESTED dismissed']);
    // Text written under the moved paragraph's new neighbour is still an answer there.
    expect(fates(three, 'Beta rules.\n\nAlpha rules.\n\nGamma rules.\n\nGamma stays: it is required by the audit.\n')).toEqual([
      'CLARIFY dismissed',
      'CONTESTED acted',
    ]);
  });

  it('characters a reader does not see are no change: a zero-width space left where the note stood, or put into the text, is a dismissal', () => {
    const sent = 'We retry 5 times.\n[CONTESTED] Too many for a paid call. Use 2.\n\nNext para.\n';
    expect(fates(sent, 'We retry 5 times.\n\u200b\n\nNext para.\n')).toEqual(['CONTESTED dismissed']);
    expect(fates(sent, 'We retry 5 times.\u200b\n\nNext para.\n')).toEqual(['CONTESTED dismissed']);
    expect(fates(sent, 'We re\u200dtry 5\u00ad times.\n\u2060\nNext para.\n')).toEqual(['CONTESTED dismissed']);
    expect(fates(sent, 'We retry\u200b 2 times.\n\nNext para.\n')).toEqual(['CONTESTED acted']);
  });

  it('what a reader does not see is no answer: a note hidden in an HTML comment, a line of control characters, an empty YAML comment', () => {
    const sent = 'Sessions expire after 30 days.\n[CONTESTED] Too long for a stolen token. Expire after 7 idle days.\n\nOther para.\n';
    const note = '[CONTESTED] Too long for a stolen token. Expire after 7 idle days.';
    for (const reply of [
      `Sessions expire after 30 days.\n<!-- ${note} -->\n\nOther para.\n`,
      `Sessions expire after 30 days. <!-- ${note} -->\n\nOther para.\n`,
      `Sessions expire after 30 days.\n<!--\n${note}\n-->\n\nOther para.\n`,
      'Sessions expire after 30 days.\n\u0085\n\nOther para.\n',
      'Sessions expire after 30 days.\n\u0001\n\nOther para.\n',
      'Sessions expire after 30 days.\n\u2800\n\nOther para.\n',
    ])
      expect(fates(sent, reply), JSON.stringify(reply)).toEqual(['CONTESTED dismissed']);
    // Text a reader sees, beside a comment, is an answer.
    expect(fates(sent, 'Sessions expire after 7 idle days. <!-- was 30 -->\n\nOther para.\n')).toEqual(['CONTESTED acted']);
    const yaml = (text: string) => ({ text, notes: scanNotes(text, { syntax: 'yaml' }), markdown: false, yaml: true });
    const config = 'server:\n  port: 8080\n  # [CONTESTED] 8080 clashes with the proxy. Use 9090.\n  host: example.org\n';
    expect(fates(config, 'server:\n  port: 8080\n  #\n  host: example.org\n', yaml)).toEqual(['CONTESTED dismissed']);
  });

  it('text written otherwise but shown the same is no change: escapes, character references, empty tags, look-alike letters', () => {
    const sent =
      '# Retry\n\nWe retry failed calls 5 times before giving up.\n[CONTESTED] Five is too many for a paid call. Cap retries at two.\n\nOther paragraph stays.\n';
    const shownTheSame = [
      'We retry failed calls 5 times before giving up\\.',
      'We retry failed calls &#53; times before giving up.',
      'We retry failed calls 5 <span></span>times before giving up.',
      'We retry failed calls 5 times<wbr> before giving up.',
      'We retry failed calls 5 tim\u0435s before giving up.',
      'We retry failed calls 5 times before giving&nbsp;up.',
    ];
    for (const line of shownTheSame) expect(fates(sent, `# Retry\n\n${line}\n\nOther paragraph stays.\n`), line).toEqual(['CONTESTED dismissed']);
    // What shows differently is a change.
    expect(fates(sent, '# Retry\n\nWe retry failed calls &#50; times before giving up.\n\nOther paragraph stays.\n')).toEqual(['CONTESTED acted']);
    expect(fates(sent, '# Retry\n\nWe retry failed calls 5 times before giving up <b>once</b>.\n\nOther paragraph stays.\n')).toEqual(['CONTESTED acted']);
  });

  it("a list's form is not its text: renumbered after another item went, or given another bullet, an item is as it was", () => {
    const ordered = 'Steps:\n\n1. Install it.\n2. Configure it.\n3. Run the tool daily.\n[CONTESTED] Daily is too often. Run it weekly.\n4. Check output.\n';
    expect(fates(ordered, 'Steps:\n\n1. Install it.\n2. Run the tool daily.\n3. Check output.\n')).toEqual(['CONTESTED dismissed']);
    expect(fates(ordered, 'Steps:\n\n1. Install it.\n2. Configure it.\n3. Run the tool weekly.\n4. Check output.\n')).toEqual(['CONTESTED acted']);
    const bullets = 'Steps:\n\n- Install it.\n- Run the tool daily.\n[CONTESTED] Daily is too often. Run it weekly.\n- Check output.\n';
    expect(fates(bullets, 'Steps:\n\n* Install it.\n* Run the tool daily.\n* Check output.\n')).toEqual(['CONTESTED dismissed']);
  });

  it('JSON: a value moved to or from the end of its object, its comma with it, is moved, not changed', () => {
    const read = (text: string) => ({ text, notes: scanNotes(text, { syntax: 'json' }), markdown: false, json: true });
    const sent = '{\n  "retries": 5,\n  "retries.note": "[CONTESTED] Too many for a paid call. Use 2.",\n  "timeout": 30,\n  "mode": "fast"\n}\n';
    expect(fates(sent, '{\n  "timeout": 30,\n  "mode": "fast",\n  "retries": 5\n}\n', read)).toEqual(['CONTESTED dismissed']);
    expect(fates(sent, '{\n  "timeout": 30,\n  "retries": 5,\n  "mode": "fast"\n}\n', read)).toEqual(['CONTESTED dismissed']);
    expect(fates(sent, '{\n  "timeout": 30,\n  "mode": "fast",\n  "retries": 2\n}\n', read)).toEqual(['CONTESTED acted']);
  });

  it('judges nothing when nothing was resolved', () => {
    expect(judgeResolved(md(NOTED), [], md(NOTED))).toEqual([]);
  });
});

describe('judgeResolved: notes that share a line with text, and text rewrapped', () => {
  const json = (text: string) => ({ text, notes: scanNotes(text, { syntax: 'json' }), markdown: false });

  /** Each reply to `sent` gets the fates written with it, the notes' in order (`a, b`). */
  function replies(sent: string, rows: [reply: string, fates: string][], read = md): void {
    for (const [reply, want] of rows) expect(fates(sent, reply, read).join(', '), reply).toBe(want);
  }

  it("the protocol's example of a note in mid-line and one in a table cell, row by row", () => {
    const sent =
      'Deploys run at noon [CLARIFY] Which zone? (A) UTC (B) local and take an hour.\n\n' +
      '| key | value |\n|---|---|\n| retries | 5 [CONTESTED] Too many for a paid call. Use 2. |\n| timeout | 30 |\n';
    const reply = (line: string, row = '| retries | 5 |'): string => `${line}\n\n| key | value |\n|---|---|\n${row}\n| timeout | 30 |\n`;
    replies(sent, [
      [reply('Deploys run at noon and take an hour.'), 'CLARIFY dismissed, CONTESTED dismissed'],
      [reply('Deploys run at noon and take\nan hour.'), 'CLARIFY dismissed, CONTESTED dismissed'],
      [reply('Deploys run at noon UTC and take an hour.'), 'CLARIFY acted, CONTESTED dismissed'],
      [reply('Deploys run at noon and take an hour.', '| retries | 2 |'), 'CLARIFY dismissed, CONTESTED acted'],
    ]);
  });

  it('a note in mid-line with text after it: the line returned without the note is a dismissal, a change to its words is not', () => {
    const original = '# Ops\n\nDeploys run at noon and take an hour.\nRollback is manual.\n';
    const sent = '# Ops\n\nDeploys run at noon [CLARIFY] Which zone? (A) UTC (B) local. and take an hour.\nRollback is manual.\n';
    expect(fates(sent, original, plain)).toEqual(['CLARIFY dismissed']);
    replies(sent, [
      [original, 'CLARIFY dismissed'],
      // The words after the note that the pass deleted were the note.
      ['# Ops\n\nDeploys run at noon.\nRollback is manual.\n', 'CLARIFY dismissed'],
      ['# Ops\n\nDeploys run at noon and take\nan hour. Rollback is manual.\n', 'CLARIFY dismissed'],
      [original.replace('noon', 'noon UTC'), 'CLARIFY acted'],
      [original.replace('noon', '12:00'), 'CLARIFY acted'],
      // The words after the note that the pass kept are text on the note's line: a change to them counts.
      [original.replace('an hour', 'two hours'), 'CLARIFY acted'],
    ]);
  });

  it('a note in a table cell: the table returned as it was is a dismissal, a changed cell is not', () => {
    const original = '# T\n\n| key | value |\n|---|---|\n| retries | 5 |\n| timeout | 30 |\n';
    replies('# T\n\n| key | value |\n|---|---|\n| retries | 5 [CONTESTED] too many, use 2 |\n| timeout | 30 |\n', [
      [original, 'CONTESTED dismissed'],
      [original.replace('| 5 |', '|   5   |'), 'CONTESTED dismissed'],
      [original.replace('| 5 |', '| 2 |'), 'CONTESTED acted'],
    ]);
    replies('| key | value | unit |\n|---|---|---|\n| retries | 5 [CONTESTED] too many, use 2 | count |\n', [
      ['| key | value | unit |\n|---|---|---|\n| retries | 5 | count |\n', 'CONTESTED dismissed'],
      ['| key | value | unit |\n|---|---|---|\n| retries | 2 | count |\n', 'CONTESTED acted'],
    ]);
  });

  it('JSON: a note added as the last key, deleted with the comma it put on the line above, is a dismissal', () => {
    const original = '{\n  "retries": 5,\n  "backoff": "linear"\n}\n';
    const sent = '{\n  "retries": 5,\n  "backoff": "linear",\n  "backoff.note": "[CLARIFY] Which base? (A) 1 s (B) 2 s"\n}\n';
    // Read as JSON when told so, and when not told (the text parses as JSON).
    expect(fates(sent, original, (text) => ({ ...json(text), json: true }))).toEqual(['CLARIFY dismissed']);
    replies(
      sent,
      [
        [original, 'CLARIFY dismissed'],
        [original.replace('linear', 'exponential'), 'CLARIFY acted'],
        [original.replace('"linear"', '"linear",\n  "base": 1'), 'CLARIFY acted'],
      ],
      json,
    );
    // As a middle key and as the first, the note's line takes its own comma with it.
    replies(
      '{\n  "retries": 5,\n  "retries.note": "[CONTESTED] Too many. Use 2.",\n  "backoff": "linear"\n}\n',
      [
        [original, 'CONTESTED dismissed'],
        [original.replace('5', '2'), 'CONTESTED acted'],
      ],
      json,
    );
    replies(
      '{\n  "note": "[CLARIFY] Seconds or tries? (A) s (B) tries",\n  "retries": 5,\n  "backoff": "linear"\n}\n',
      [[original, 'CLARIFY dismissed']],
      json,
    );
  });

  it('JSON: a note inside a string value ends with the string; the value returned as it was is a dismissal', () => {
    const original = '{\n  "retries": 5,\n  "backoff": "linear"\n}\n';
    replies(
      '{\n  "retries": 5,\n  "backoff": "linear [CLARIFY] Which base? (A) 1 s (B) 2 s"\n}\n',
      [
        [original, 'CLARIFY dismissed'],
        [original.replace('"linear"', '"linear, base 1 s"'), 'CLARIFY acted'],
      ],
      json,
    );
    // Text after the string on the note's line is text, not the note.
    replies(
      '{ "a": "x [CONTESTED] Not x. Use y.", "b": "z" }\n',
      [
        ['{ "a": "x", "b": "z" }\n', 'CONTESTED dismissed'],
        ['{ "a": "x" }\n', 'CONTESTED acted'],
      ],
      json,
    );
  });

  it('a rewrapped paragraph is the same words: a dismissal; a word changed while rewrapping is not', () => {
    replies('# S\n\nSessions expire after 30 days.\n[CONTESTED] Too long for a stolen token. Expire after 7 idle days.\n\nOther text.\n', [
      ['# S\n\nSessions expire\nafter 30 days.\n\nOther text.\n', 'CONTESTED dismissed'],
      ['# S\n\nSessions expire\nafter 7 idle days.\n\nOther text.\n', 'CONTESTED acted'],
      ['# S\n\nSessions expire\nafter 30 days.\n\nA stolen token is revoked at the next login.\n\nOther text.\n', 'CONTESTED acted'],
    ]);
    replies('Tokens expire after\n30 idle days, and\nare revoked on logout.\n[CLARIFY] Which logout? (A) any (B) all devices\n\nEnd.\n', [
      ['Tokens expire after 30 idle days, and are revoked on logout.\n\nEnd.\n', 'CLARIFY dismissed'],
      ['Tokens expire\nafter 30 idle\ndays, and are\nrevoked on logout.\n\nEnd.\n', 'CLARIFY dismissed'],
      ['Tokens expire after 30 idle days, and are revoked on every logout.\n\nEnd.\n', 'CLARIFY acted'],
    ]);
  });

  it('rewrapped quotes, list items and text without spaces are the same words', () => {
    replies('> Sessions expire after 30 days and\n> tokens are revoked.\n> [CONTESTED] Too long. Use 7 days.\n', [
      ['> Sessions expire after 30\n> days and tokens are revoked.\n', 'CONTESTED dismissed'],
      ['> Sessions expire after 7\n> days and tokens are revoked.\n', 'CONTESTED acted'],
      // Out of the quote is a change.
      ['Sessions expire after 30 days and\ntokens are revoked.\n', 'CONTESTED acted'],
    ]);
    replies('- Sessions expire after 30 days and tokens are revoked.\n  [CONTESTED] Too long. Use 7 days.\n- Logs are kept.\n', [
      ['- Sessions expire after 30 days\n  and tokens are revoked.\n- Logs are kept.\n', 'CONTESTED dismissed'],
    ]);
    replies('会话在三十天后过期并撤销令牌。\n[CONTESTED] 太长了。改为七天。\n', [
      ['会话在三十天后过期\n并撤销令牌。\n', 'CONTESTED dismissed'],
      ['会话在七天后过期\n并撤销令牌。\n', 'CONTESTED acted'],
    ]);
  });

  it('a group of changed lines too large for one alignment is matched word by word all the same', () => {
    // 30 paragraphs of 40 words, every one rewrapped: one group of changed lines, 1,200 words a side.
    const words = (p: number): string[] => Array.from({ length: 40 }, (_, k) => `w${p}x${k % 7}${k % 3 ? '.' : ''}`);
    const wrap = (ws: string[], n: number): string =>
      ws
        .map((w, k) => (k % n === n - 1 ? `${w}\n` : `${w} `))
        .join('')
        .trim();
    const paragraphs = Array.from({ length: 30 }, (_, p) => words(p));
    const sent = paragraphs
      .map((ws, p) => {
        const text = wrap(ws, 10);
        if (p === 3) return text.replace('w3x2 ', 'w3x2 [CLARIFY] Which one? (A) w3x1 (B) w3x2 ');
        if (p === 20) return text.replace('\n', '\n[CONTESTED] Not so. Write w20x6.\n');
        return text;
      })
      .join('\n\n');
    const rewrapped = paragraphs.map((ws) => wrap(ws, 7)).join('\n\n');
    replies(`${sent}\n`, [
      [`${rewrapped}\n`, 'CLARIFY dismissed, CONTESTED dismissed'],
      [`${rewrapped.replace('w3x0 w3x1.', 'w3x0 new w3x1.')}\n`, 'CLARIFY acted, CONTESTED dismissed'],
      [`${rewrapped.replace('w20x0 w20x1.', 'w20x0 new w20x1.')}\n`, 'CLARIFY dismissed, CONTESTED acted'],
    ]);
  });

  it('each paragraph of a group of changed lines is judged by its own words', () => {
    // The first paragraph rewrapped, the second rewritten: one group of changed lines.
    replies(
      'Ship on Monday with the new cache.\n[CLARIFY] Which cache? (A) disk (B) memory\n\nRollback is manual.\n[CONTESTED] Manual is slow. Automate it.\n',
      [['Ship on Monday with\nthe new cache.\n\nRollback is automatic.\n', 'CLARIFY dismissed, CONTESTED acted']],
    );
    // A wrapped note deleted whose last line starts with the word the rewrapped paragraph below it starts with.
    replies('Ship on Monday.\n[CONTESTED] Monday is a holiday.\nShip on Tuesday.\n\nShip the cache with it.\n[CLARIFY] Which cache? (A) disk (B) memory\n', [
      ['Ship on Monday.\n\nShip the cache\nwith it.\n', 'CONTESTED dismissed, CLARIFY dismissed'],
    ]);
  });
});

describe('NoteOrigins', () => {
  it('follows who raised each note across passes; the input raised the notes it had', () => {
    const input = md('A.\n[CLARIFY] Which A? (A) one (B) two\n');
    const origins = new NoteOrigins(input.notes);
    const pass1 = md('A.\n[CLARIFY] Which A? (A) one (B) two\n\nB.\n[CONTESTED] B is wrong. Write C.\n');
    const d1 = diffNotes(input.notes, pass1.notes);
    origins.advance(d1.resolved, d1.added, { pass: 1, agent: 'claude' });
    const pass2 = md('A one.\n\nC.\n');
    const d2 = diffNotes(pass1.notes, pass2.notes);
    expect(origins.originsOf(d2.resolved)).toEqual([INPUT_ORIGIN, { pass: 1, agent: 'claude' }]);
  });

  it('of two notes with the same text, the first raised is the first resolved', () => {
    const note = md('X.\n[CLARIFY] Same? (A) yes (B) no\n').notes;
    const origins = new NoteOrigins(note);
    origins.advance([], note, { pass: 1, agent: 'rev' });
    expect(origins.originsOf([...note, ...note])).toEqual([INPUT_ORIGIN, { pass: 1, agent: 'rev' }]);
    origins.advance(note, [], { pass: 2, agent: 'com' });
    expect(origins.originsOf(note)).toEqual([{ pass: 1, agent: 'rev' }]);
  });
});
