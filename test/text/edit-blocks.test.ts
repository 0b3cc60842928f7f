import { describe, expect, it } from 'vitest';
import {
  AUTO_EDITS_ABOVE_WORDS,
  applyByLines,
  applyEditBlocks,
  type EditBlock,
  editBlocksFor,
  editFormatFor,
  editsReason,
  MAX_EDIT_BLOCKS,
  parseEditReply,
} from '../../src/text/edit-blocks.js';
import { makeDelimiters } from '../../src/engine/prompt.js';
import { countWords } from '../../src/text/words.js';
import { REPLY_DEFAULTS } from '../../src/config/defaults.js';
import { editsMode, type ReplyContext, replyMode, replyModeFor } from '../../src/engine/reply.js';

const block = (search: string, replace: string): string => `<<<<<<< SEARCH\n${search}\n=======\n${replace}\n>>>>>>> REPLACE`;
const emptyReplace = (search: string): string => `<<<<<<< SEARCH\n${search}\n=======\n>>>>>>> REPLACE`;

function blocksOf(reply: string): EditBlock[] {
  const parsed = parseEditReply(reply);
  if (parsed.kind !== 'blocks') throw new Error(`not blocks: ${parsed.kind}`);
  return parsed.blocks;
}
const apply = (doc: string, reply: string) => applyEditBlocks(doc, blocksOf(reply));

const DOC = `# Rollout

We ship on Monday.

Rollback is manual.

## Owners

- Alice runs the release.
- Bob watches the dashboards.
`;

describe('parseEditReply', () => {
  it('reads one or more blocks, with or without text and fences between them', () => {
    const reply = `${block('a', 'b')}\n\n\`\`\`\n${block('c', 'd')}\n\`\`\`\n`;
    const parsed = parseEditReply(reply);
    expect(parsed).toMatchObject({ kind: 'blocks', stray: false });
    expect(blocksOf(reply).map((b) => [b.index, b.body])).toEqual([
      [1, ['a', '=======', 'b']],
      [2, ['c', '=======', 'd']],
    ]);
    expect(parseEditReply(`Here are my edits.\n${block('a', 'b')}`)).toMatchObject({ kind: 'blocks', stray: true });
  });

  it('reads CRLF and a BOM', () => {
    expect(blocksOf(`\uFEFF${block('a', 'b').replace(/\n/g, '\r\n')}\r\n`)[0]?.body).toEqual(['a', '=======', 'b']);
  });

  it('calls a reply without a SEARCH line a document', () => {
    expect(parseEditReply(DOC)).toEqual({ kind: 'document' });
  });

  it('calls a reply of more blocks than one reply may hold malformed, naming the limit', () => {
    const many = (n: number): string => Array.from({ length: n }, (_, i) => block(`line ${i}`, `line ${i}!`)).join('\n');
    expect(parseEditReply(many(MAX_EDIT_BLOCKS))).toMatchObject({ kind: 'blocks' });
    expect(parseEditReply(many(MAX_EDIT_BLOCKS + 1))).toEqual({
      kind: 'malformed',
      reason: `The reply has ${MAX_EDIT_BLOCKS + 1} edit blocks, more than the ${MAX_EDIT_BLOCKS} one reply may hold: merge neighbouring changes into larger blocks, or send the whole revised document.`,
    });
  });

  it('names a block cut off before its REPLACE line, or one without a divider', () => {
    expect(parseEditReply(`${block('a', 'b')}\n<<<<<<< SEARCH\nc\n=======\nd`)).toEqual({
      kind: 'malformed',
      reason: 'Edit block 2 has no >>>>>>> REPLACE line: the reply ends inside it.',
    });
    expect(parseEditReply('<<<<<<< SEARCH\na\n>>>>>>> REPLACE')).toMatchObject({ kind: 'malformed', reason: expect.stringContaining('no ======= line') });
  });
});

describe('applyEditBlocks', () => {
  it('applies an exact block and reports where its replacement stands', () => {
    const r = apply(DOC, block('We ship on Monday.', 'We ship on Tuesday.\n[CLARIFY] Which Tuesday? (A) this week (B) next week'));
    expect(r.text).toBe(DOC.replace('We ship on Monday.', 'We ship on Tuesday.\n[CLARIFY] Which Tuesday? (A) this week (B) next week'));
    expect(r.outcomes).toEqual([{ block: 1, applied: 'exact', line: 3, lines: 2 }]);
    expect(r.failures).toEqual([]);
  });

  it('applies blocks in order, each to the document the blocks before it left, and shifts earlier line numbers', () => {
    const r = apply(
      DOC,
      [block('- Bob watches the dashboards.', '- Bob watches the dashboards.\n- Carol answers support.'), block('# Rollout', '# Rollout\n\nDraft.')].join('\n'),
    );
    expect(r.text).toContain('# Rollout\n\nDraft.\n\nWe ship');
    expect(r.text).toContain('- Bob watches the dashboards.\n- Carol answers support.\n');
    expect(r.outcomes).toEqual([
      { block: 1, applied: 'exact', line: 12, lines: 2 },
      { block: 2, applied: 'exact', line: 1, lines: 3 },
    ]);
  });

  it('deletes lines with an empty replacement', () => {
    const r = apply(DOC, emptyReplace('Rollback is manual.\n'));
    expect(r.text).toBe(DOC.replace('Rollback is manual.\n\n', ''));
    expect(r.outcomes).toEqual([{ block: 1, applied: 'exact', line: 5, lines: 0 }]);
  });

  it('falls back to a whitespace-tolerant match (indentation, trailing spaces) and keeps the document indentation', () => {
    const code = 'def f():\n    if x:\n        return 1\n    return 2\n';
    const r = apply(code, block('if x:   \n    return 1', 'if x and y:\n    return 1'));
    expect(r.text).toBe('def f():\n    if x and y:\n        return 1\n    return 2\n');
    expect(r.outcomes).toEqual([{ block: 1, applied: 'tolerant', line: 2, lines: 2 }]);
    // Inner runs of whitespace are ignored too.
    expect(apply(DOC, block('We  ship   on Monday.', 'We ship on Friday.')).outcomes[0]).toMatchObject({ applied: 'tolerant' });
  });

  it('prefers an exact match over a tolerant one elsewhere', () => {
    const doc = 'a\n  b\nb\n';
    expect(apply(doc, block('b', 'c'))).toMatchObject({ text: 'a\n  b\nc\n', outcomes: [{ applied: 'exact', line: 3 }] });
  });

  it('matches inside lines when the SEARCH text is nowhere as whole lines, from word boundary to word boundary', () => {
    const r = apply(DOC, block('on Monday', 'on Tuesday'));
    expect(r.text).toBe(DOC.replace('on Monday', 'on Tuesday'));
    expect(r.outcomes).toEqual([{ block: 1, applied: 'inline', line: 3, lines: 1 }]);
    // Across lines: the end of one line to the start of another; an empty part takes the text only.
    expect(apply(DOC, block('manual.\n\n## Owners', 'manual.\n\n## People')).text).toBe(DOC.replace('## Owners', '## People'));
    expect(apply(DOC, emptyReplace(' on Monday')).text).toBe(DOC.replace(' on Monday', ''));
    // Never from or to the middle of a word: `x = 1` is not in `x = 10`.
    expect(apply('x = 10\n', block('x = 1', 'x = 2')).outcomes).toMatchObject([{ failed: 'missing' }]);
    expect(apply('café ok\n', block('caf', 'tea')).outcomes).toMatchObject([{ failed: 'missing' }]);
    // Whole lines win over a place inside a line; two places inside lines are ambiguous.
    expect(apply('a b\nb\n', block('b', 'c')).text).toBe('a b\nc\n');
    expect(apply('a b\nb c\n', block('b', 'c')).outcomes).toMatchObject([{ failed: 'ambiguous', matches: 2 }]);
    // A whitespace-only SEARCH part never matches inside a line.
    expect(apply('a  b', block('  ', ' ')).outcomes).toMatchObject([{ failed: 'missing' }]);
  });

  it('tries whole lines ignoring whitespace when the SEARCH text is in several places inside lines', () => {
    const r = apply('  step one\nstep one done\n', block('step one', 'step two'));
    expect(r.outcomes).toEqual([{ block: 1, applied: 'tolerant', line: 1, lines: 1 }]);
    expect(r.text).toBe('  step two\nstep one done\n');
  });

  it('reports a block that matches more than once as ambiguous, with each place, and applies the rest', () => {
    const doc = 'Intro.\n\nSee above.\n\nMiddle.\n\nSee above.\n';
    const r = apply(doc, [block('See above.', 'See the intro.'), block('Intro.', 'Introduction.')].join('\n'));
    expect(r.text).toBe(doc.replace('Intro.', 'Introduction.'));
    expect(r.outcomes).toEqual([
      { block: 1, failed: 'ambiguous', line: 3, lines: 1, matches: 2 },
      { block: 2, applied: 'exact', line: 1, lines: 1 },
    ]);
    expect(r.failures[0]).toMatchObject({
      block: 1,
      failed: 'ambiguous',
      matches: 2,
      excerpts: [
        { line: 3, lines: ['See above.'] },
        { line: 7, lines: ['See above.'] },
      ],
    });
    expect(r.failures[0]?.written).toBe(block('See above.', 'See the intro.'));
  });

  it('reports a block that matches nowhere as missing, with the closest lines of the document as it stands', () => {
    const r = apply(
      DOC,
      [block('# Rollout', '# Rollout plan'), block('- Alice runs the release.\n- Bob watches the graphs.', '- Alice and Bob run it.')].join('\n'),
    );
    expect(r.outcomes[1]).toEqual({ block: 2, failed: 'missing', line: 9, lines: 2, matches: 0 });
    expect(r.failures[0]?.excerpts).toEqual([{ line: 9, lines: ['- Alice runs the release.', '- Bob watches the dashboards.'] }]);
    // Nothing in common: no lines are offered.
    expect(apply(DOC, block('zzz qqq', 'x')).failures[0]?.excerpts).toEqual([]);
    // No line in place, but one sharing words: it is offered.
    expect(apply(DOC, block('Rollback is automatic.', 'x')).failures[0]?.excerpts).toEqual([{ line: 5, lines: ['Rollback is manual.'] }]);
  });

  it('counts a block whose SEARCH part is empty as ambiguous', () => {
    expect(apply(DOC, '<<<<<<< SEARCH\n=======\nnew\n>>>>>>> REPLACE').outcomes[0]).toMatchObject({ block: 1, failed: 'ambiguous' });
  });

  it('fails the later of two overlapping blocks: its SEARCH text was changed by the first', () => {
    const r = apply(
      DOC,
      [
        block('We ship on Monday.\n\nRollback is manual.', 'We ship on Monday.\n\nRollback is scripted.'),
        block('Rollback is manual.\n\n## Owners', 'Rollback is by hand.\n\n## Owners'),
      ].join('\n'),
    );
    expect(r.text).toContain('Rollback is scripted.');
    expect(r.outcomes.map((o) => ('applied' in o ? o.applied : o.failed))).toEqual(['exact', 'missing']);
    expect(r.failures[0]?.excerpts[0]).toEqual({ line: 5, lines: ['Rollback is scripted.', '', '## Owners'] });
  });

  it('takes the divider that makes the SEARCH part match once: a heading underline of seven = signs', () => {
    const doc = 'Title\n=======\n\nBody text.\n\nTitle\n';
    const r = apply(doc, block('Title\n=======\n\nBody text.', 'New title\n=======\n\nBody text, revised.'));
    expect(r.text).toBe('New title\n=======\n\nBody text, revised.\n\nTitle\n');
    expect(r.outcomes).toEqual([{ block: 1, applied: 'exact', line: 1, lines: 4 }]);
  });
});

describe('editsReason', () => {
  it('names failed blocks by number and line, never their text', () => {
    const r = apply(DOC, [block('Nowhere to be found.', 'x'), block('# Rollout', '# Plan')].join('\n'));
    const reason = editsReason({ reply: 'blocks', blocks: r.outcomes, failures: r.failures });
    expect(reason).toBe('1 of 2 edit blocks did not apply: block 1 matches nowhere (no line is close); the other 1 applied and are in the document below');
    const amb = apply('x\n\nx\n', block('x', 'y'));
    expect(editsReason({ reply: 'blocks', blocks: amb.outcomes, failures: amb.failures })).toBe(
      '1 of 1 edit block did not apply: block 1 matches 2 places (first: line 1)',
    );
  });
});

describe('editBlocksFor', () => {
  it('turns a local change into a block with just enough words around it to be found once, and back', () => {
    const after = DOC.replace('Rollback is manual.', 'Rollback is manual.\n[CONTESTED] Script it.');
    const blocks = editBlocksFor(DOC, after);
    // "manual." is found once, inside its line: the note goes in after the line it follows.
    expect(blocks).toBe(block('manual.', 'manual.\n[CONTESTED] Script it.'));
    expect(apply(DOC, blocks).outcomes).toEqual([{ block: 1, applied: 'inline', line: 5, lines: 2 }]);
    // A word that is in two places takes the words beside it.
    const twice = DOC.replace('the dashboards', 'the two dashboards');
    expect(editBlocksFor(DOC, twice)).toBe(block('the dashboards', 'the two dashboards'));
    expect(apply(DOC, blocks).text).toBe(after);
    expect(editBlocksFor(DOC, DOC)).toBe('');
  });

  it('round-trips random edits inside lines, with repeated words, non-ASCII letters and surrogate pairs', () => {
    let seed = 3;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return (seed >>> 8) % n;
    };
    const words = ['alpha', 'beta', 'x', '=', '1', '10', 'é', 'naïve', '𝐀b', '😀', '.', ',', '[CLARIFY]', '\n', '\n\n', '  '];
    const text = (n: number): string => Array.from({ length: n }, () => words[rand(words.length)]).join(rand(2) ? ' ' : '');
    for (let round = 0; round < 300; round++) {
      const a = text(5 + rand(40));
      let b = a;
      for (let e = rand(3) + 1; e > 0; e--) {
        const at = rand(b.length + 1);
        const len = rand(6);
        b = b.slice(0, at) + (rand(3) ? text(rand(4)) : '') + b.slice(Math.min(b.length, at + len));
      }
      // Edits made by code units can split a pair: such text is no document.
      if (a === b || /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(b)) continue;
      const blocks = editBlocksFor(a, b);
      const r = applyEditBlocks(a, blocksOf(blocks));
      expect(r.failures, `round ${round}`).toEqual([]);
      expect(r.text, `round ${round}`).toBe(b);
      // The words the blocks removed and added, counted where they touch: the whole recounted.
      expect(r.wordDelta, `round ${round}`).toBe(countWords(b) - countWords(a));
      expect(applyByLines(a, blocksOf(blocks)), `round ${round}`).toEqual(r);
    }
  });

  it('round-trips random edits of a document with repeated lines', () => {
    let seed = 7;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pool = ['alpha', 'beta', '', 'gamma', 'alpha', '- item', '[CLARIFY] Which? (A) a (B) b'];
    for (let round = 0; round < 200; round++) {
      const before = Array.from({ length: 5 + rand(30) }, () => pool[rand(pool.length)] as string);
      const after = [...before];
      for (let e = rand(4) + 1; e > 0; e--) {
        const at = rand(after.length + 1);
        const kind = rand(3);
        if (kind === 0) after.splice(at, 0, `new ${round}-${e}`);
        else if (kind === 1 && after.length > 1) after.splice(Math.min(at, after.length - 1), 1);
        else after.splice(at, 1, `changed ${round}-${e}`);
      }
      const a = before.join('\n');
      const b = after.join('\n');
      const blocks = editBlocksFor(a, b);
      if (a === b) continue;
      const r = applyEditBlocks(a, blocksOf(blocks));
      expect(r.failures, `round ${round}`).toEqual([]);
      expect(r.text, `round ${round}`).toBe(b);
    }
  });

  it('the fast path (string matches, as whole lines or inside lines) gives what the line-by-line path gives, for random blocks that apply, fail or collide', () => {
    let seed = 11;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return (seed >>> 8) % n; // the low bits of this generator repeat in short cycles
    };
    const pool = ['alpha', 'beta', '', 'gamma', 'alpha', '  alpha', 'alpha beta', '- item'];
    let fast = 0;
    for (let round = 0; round < 400; round++) {
      // Half the lines unique, half from a small pool (repeats, blanks, indented twins).
      const doc = Array.from({ length: 3 + rand(20) }, (_, i) => `${pool[rand(pool.length)]}${rand(2) ? ` ${i}` : ''}`).join('\n') + (rand(2) ? '\n' : '');
      const lines = doc.split('\n');
      const blocks = Array.from({ length: 1 + rand(3) }, () => {
        const at = rand(lines.length);
        const whole = lines.slice(at, at + 1 + rand(2));
        // A third of the blocks quote part of a line: its last words, or the words after the first.
        const cut = (l: string): string => (rand(2) ? l.slice(l.indexOf(' ') + 1) : l.slice(0, l.lastIndexOf(' ') + 1 || l.length).trimEnd());
        const search = rand(3) === 0 ? [cut(whole[0] as string), ...whole.slice(1)] : whole;
        const replace = rand(3) === 0 ? [] : Array.from({ length: 1 + rand(2) }, () => `r${rand(5)}`);
        return block(search.join('\n'), replace.join('\n'));
      });
      const parsed = blocksOf(blocks.join('\n'));
      const r = applyEditBlocks(doc, parsed);
      if (r.outcomes.every((o) => 'applied' in o && o.applied !== 'tolerant')) fast++;
      expect(r, `round ${round}`).toEqual(applyByLines(doc, parsed));
    }
    // Most rounds take the fast path, so the comparison is not empty.
    expect(fast).toBeGreaterThan(100);
  });
});

describe('editFormatFor', () => {
  const words = (n: number): string => `${Array.from({ length: n }, (_, i) => `w${i}`).join(' ')}\n`;
  it('keeps whole and edits; auto takes edits only above the documented size', () => {
    expect(editFormatFor('whole', words(5000))).toBe('whole');
    expect(editFormatFor('edits', 'short')).toBe('edits');
    expect(editFormatFor('auto', words(AUTO_EDITS_ABOVE_WORDS))).toBe('whole');
    expect(editFormatFor('auto', words(AUTO_EDITS_ABOVE_WORDS + 1))).toBe('edits');
  });
  it('auto keeps whole replies for a document that shows block markers itself', () => {
    expect(editFormatFor('auto', `${words(AUTO_EDITS_ABOVE_WORDS + 1)}<<<<<<< SEARCH\n`)).toBe('whole');
  });
});

describe('the edits reply mode', () => {
  const ctx = (sent: string, original = sent): ReplyContext => ({
    sent,
    original,
    delimiters: makeDelimiters(sent),
    maxBytes: 1_000_000,
    summaryRatio: REPLY_DEFAULTS.summaryRatio,
    summaryMinWords: REPLY_DEFAULTS.summaryMinWords,
  });

  it('is the mode for edits, the document mode for whole', () => {
    expect(replyModeFor('edits')).toBe('edits');
    expect(replyModeFor('whole')).toBe('document');
    expect(replyMode('edits')).toBe(editsMode);
  });

  it("applies blocks to a CRLF document with a BOM and gives the result the original's conventions", () => {
    const original = `\uFEFF${DOC.replace(/\n/g, '\r\n')}`;
    const sent = DOC; // what the prompt showed: BOM stripped, LF
    const v = editsMode.accept(block('We ship on Monday.', 'We ship on Friday.').replace(/\n/g, '\r\n'), ctx(sent, original));
    expect(v).toMatchObject({ ok: true, fixes: [], edits: { reply: 'blocks', blocks: [{ block: 1, applied: 'exact', line: 3, lines: 1 }], failures: [] } });
    if (!v.ok) throw new Error('rejected');
    expect(v.document).toBe(original.replace('Monday', 'Friday'));
  });

  it('accepts a whole document instead of blocks as a whole document', () => {
    const revised = DOC.replace('Monday', 'Friday');
    const v = editsMode.accept(`\`\`\`markdown\n${revised}\`\`\`\n`, ctx(DOC));
    expect(v).toMatchObject({ ok: true, document: revised, edits: { reply: 'document', blocks: [] } });
  });

  it('returns the blocks that applied together with the failures', () => {
    const v = editsMode.accept([block('# Rollout', '# Plan'), block('Not there.', 'x')].join('\n'), ctx(DOC));
    expect(v).toMatchObject({ ok: true, document: DOC.replace('# Rollout', '# Plan'), edits: { failures: [{ block: 2, failed: 'missing' }] } });
  });

  it('rejects blocks that leave a summary of the document, and a block cut off', () => {
    const long = `${Array.from({ length: 80 }, (_, i) => `Line ${i} of the long document.`).join('\n')}\n`;
    const v = editsMode.accept(emptyReplace(long.split('\n').slice(0, 70).join('\n')), ctx(long));
    expect(v).toMatchObject({ ok: false, kind: 'summary' });
    expect(editsMode.accept('<<<<<<< SEARCH\n# Rollout\n=======\n# Plan', ctx(DOC))).toMatchObject({ ok: false, kind: 'malformed' });
    expect(editsMode.accept('  \n', ctx(DOC))).toMatchObject({ ok: false, kind: 'empty' });
  });
});
