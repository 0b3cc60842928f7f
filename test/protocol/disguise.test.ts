import { describe, expect, it } from 'vitest';
import { lintNotes } from '../../src/protocol/lint.js';
import { LOOK_ALIKE_GROUPS } from '../../src/protocol/look-alikes.js';
import { scanNotes, type ScanOptions } from '../../src/protocol/scanner.js';
import { seeded } from '../support/random.js';

/** `KIND line:col` of each note, with its disguise when it has one. */
function notes(doc: string, opts: ScanOptions = {}): string[] {
  return scanNotes(doc, opts).map((n) => `${n.kind} ${n.line}:${n.column}${n.disguise ? ` (${n.disguise})` : ''}`);
}

const ABOVE = 'Ship on Monday.\n';

// [what disguises it, the marker as written]: each reads as [CLARIFY] to a person.
const DISGUISES: [string, string][] = [
  ['a zero width joiner', '[CLA\u200dRIFY]'],
  ['a zero width space', '[CLA\u200bRIFY]'],
  ['a zero width non-joiner', '[CLARI\u200cFY]'],
  ['a word joiner', '[C\u2060LARIFY]'],
  ['a soft hyphen', '[CLAR\u00adIFY]'],
  ['a byte order mark inside', '[CLARIFY\ufeff]'],
  ['a variation selector', '[CLARIFY\ufe0f]'],
  ['a right-to-left mark', '[\u200fCLARIFY]'],
  ['fullwidth brackets', '\uff3bCLARIFY\uff3d'],
  ['a fullwidth opener only', '\uff3bCLARIFY]'],
  ['fullwidth letters', '[\uff23\uff2c\uff21\uff32\uff29\uff26\uff39]'],
  ['vertical presentation brackets', '\ufe47CLARIFY\ufe48'],
  ['a Cyrillic С', '[\u0421LARIFY]'],
  ['Cyrillic А and І', '[CL\u0410R\u0406FY]'],
  ['a Cyrillic lower-case а', '[Cl\u0430rify]'],
  ['a Greek Α and Ι', '[CL\u0391R\u0399FY]'],
  ['mathematical bold letters', '[\u{1d402}LARIFY]'],
  ['a Greek lunate sigma for C', '[\u03f9LARIFY]'],
  ['a Greek digamma for F', '[CLARI\u03dcY]'],
  ['Latin small capitals', '[\u1d04\u029f\u1d00\u0280\u026a\ua730\u028f]'],
  ['Cherokee letters', '[\u13df\u13de\u13aaR\u13a5FY]'],
  ['a Coptic letter', '[\u2ca4LARIFY]'],
  ['a Cyrillic palochka for L', '[C\u04c0ARIFY]'],
  ['a long s for F', '[CLARI\u017fY]'],
  ['a negative squared letter', '[\u{1f172}LARIFY]'],
  ['several at once', '\uff3bC\u200bL\u0410R\u00adIFY\uff3d'],
];

describe('disguised markers', () => {
  for (const [what, marker] of DISGUISES) {
    it(`${what} is a note, canonical, and its disguise is named`, () => {
      const doc = `${ABOVE}${marker} Which Monday? (A) the 3rd (B) the 10th\n`;
      const [note, ...rest] = scanNotes(doc);
      expect(rest).toEqual([]);
      expect(note).toMatchObject({ kind: 'CLARIFY', line: 2, column: 1, canonical: true });
      expect(note!.text).toMatch(/^\[clarify\] Which Monday\? \(A\) the 3rd \(B\) the 10th$/i);
      expect(note!.disguise).toMatch(/^U\+[0-9A-F]{4,5} /);
      const problems = lintNotes([note!], doc).map((p) => `${p.rule}: ${p.message}`);
      expect(problems).toEqual([`marker-spelling: [CLARIFY] is disguised by ${note!.disguise}: it reads as a note, and counts as one`]);
    });
  }

  it('names what disguised it, and where', () => {
    expect(notes(`${ABOVE}[CLA\u200dRIFY] x or y?\n`)).toEqual(['CLARIFY 2:1 (U+200D (invisible) after "[CLA")']);
    expect(notes(`${ABOVE}[\u0421ONTESTED] Use two.\n`)).toEqual(['CONTESTED 2:1 (U+0421 (a Cyrillic letter like C) after "[")']);
    expect(notes(`${ABOVE}\uff3bCLARIFY] x or y?\n`)).toEqual(['CLARIFY 2:1 (U+FF3B (a compatibility form of [) as the opening bracket)']);
  });

  it('markdown: an invisible written as a character reference is a disguise too; plain text shows the reference', () => {
    const doc = `${ABOVE}[CLA&#8203;RIFY] x or y? [CLA&shy;RIFY] z or w? &#91;CLA&#x200D;RIFY&#93; a or b?\n`;
    expect(notes(doc).map((n) => n.replace(/ \(.*$/, ''))).toEqual(['CLARIFY 2:1', 'CLARIFY 2:26', 'CLARIFY 2:49']);
    expect(notes(doc)[0]).toContain('written &#8203;');
    expect(notes(doc, { syntax: 'plain' })).toEqual([]);
  });

  it('every letter of A to Z has look-alikes, upper or lower case, that the table reads as it', () => {
    const reads = new Set(Object.keys(LOOK_ALIKE_GROUPS).flatMap((group) => [...group.toUpperCase()]));
    expect([...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'].filter((letter) => !reads.has(letter))).toEqual([]);
    for (const [group, chars] of Object.entries(LOOK_ALIKE_GROUPS)) {
      expect(chars.length, group).toBeGreaterThan(0);
      expect(
        [...chars].filter((c) => c.codePointAt(0)! < 0x80),
        group,
      ).toEqual([]);
    }
  });

  it('a look-alike of each letter, in a configured marker of all 26 letters, makes it a note', () => {
    const name = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    for (const [group, chars] of Object.entries(LOOK_ALIKE_GROUPS)) {
      for (const letter of new Set(group.toUpperCase())) {
        const i = name.indexOf(letter);
        for (const c of chars) {
          const doc = `${ABOVE}[${name.slice(0, i)}${c}${name.slice(i + 1)}] x\n`;
          expect(
            notes(doc, { markers: [name] }).map((n) => n.slice(0, name.length + 4)),
            `U+${c.codePointAt(0)!.toString(16)} for ${letter}`,
          ).toEqual([`${name} 2:1`]);
        }
      }
    }
  });

  it('the Greek lunate sigma and digamma: notes in markdown, YAML and JSON, named', () => {
    const sigma = 'CONTESTED 2:1 (U+03F9 (a Greek letter like C) after "[")';
    const digamma = 'CLARIFY 2:1 (U+03DC (a Greek letter like F) after "[CLARI")';
    expect(notes(`${ABOVE}[\u03f9ONTESTED] Too vague. Say X.\n`)).toEqual([sigma]);
    expect(notes(`${ABOVE}[CLARI\u03dcY] Which? (A) a (B) b\n`)).toEqual([digamma]);
    expect(notes('k: v\n# [\u03f9ONTESTED] Too vague.\n', { syntax: 'yaml' })).toEqual([sigma.replace('2:1', '2:3')]);
    expect(notes('{"k": "v",\n "k.note": "[CLARI\u03dcY] Which?"}\n', { syntax: 'json' })).toEqual([
      'CLARIFY 2:13 (U+03DC (a Greek letter like F) after "[CLARI")',
    ]);
  });

  it('a look-alike of two letters reads as the one the name has there, and says both', () => {
    expect(notes(`${ABOVE}[C\u04c0ARIFY] x or y?\n`)).toEqual(['CLARIFY 2:1 (U+04C0 (a Cyrillic letter like I or l) after "[C")']);
    expect(notes(`${ABOVE}[CLAR\u04c0FY] x or y?\n`)).toEqual(['CLARIFY 2:1 (U+04C0 (a Cyrillic letter like I or l) after "[CLAR")']);
    expect(scanNotes(`${ABOVE}[C\u04c0AR\u04c0FY] x or y?\n`)[0]!.text).toBe('[ClARIFY] x or y?');
    expect(scanNotes(`${ABOVE}[CONTE\u017fTED] x\n`)[0]!.text).toBe('[CONTEsTED] x');
    expect(scanNotes(`${ABOVE}[CLARI\u017fY] x\n`)[0]!.text).toBe('[CLARIfY] x');
    // A stroke is no other letter, and a private-use character in the text is no look-alike.
    expect(notes(`${ABOVE}[CLA\u04c0IFY] [CLAR\ue000FY] [CLARI\ue001Y] x\n`)).toEqual([]);
  });

  it('a custom marker gets the same folding', () => {
    expect(notes(`${ABOVE}[RI\u200bSK] x\n`, { markers: ['RISK'] })).toEqual(['RISK 2:1 (U+200B (invisible) after "[RI")']);
    expect(notes(`${ABOVE}[RI\u200bSK] x\n`)).toEqual([]);
  });

  it('every syntax folds: plain, JSON and YAML', () => {
    expect(notes('a [CLA\u200dRIFY] b\n', { syntax: 'plain' })).toHaveLength(1);
    expect(notes('{"k": "[C\u200bONTESTED] Use two."}\n', { syntax: 'json' })).toHaveLength(1);
    expect(notes('k: v # [CL\u0410RIFY] a or b?\n', { syntax: 'yaml' })).toHaveLength(1);
  });

  it('a disguised marker in code or a comment is hidden like any other', () => {
    expect(notes('`[CLA\u200dRIFY]` and <!-- [CLA\u200dRIFY] -->\n\n```\n\uff3bCLARIFY\uff3d\n```\n')).toEqual([]);
    expect(notes('<div>\n\n{/* [CLA\u200dRIFY] */}\n\n</div>\n', { mdx: true })).toEqual([]);
  });

  it('a plain marker next to a disguised one: each counts once', () => {
    expect(notes(`${ABOVE}[CLARIFY] x or y? [CLA\u200dRIFY] z or w?\n`).map((n) => n.slice(0, 11))).toEqual(['CLARIFY 2:1', 'CLARIFY 2:1']);
    expect(notes(`${ABOVE}[CLARIFY] x or y? [CLA\u200dRIFY] z or w?\n`).length).toBe(2);
  });

  it('not a marker: other letters, combining marks, a visible gap, a line break, a missing bracket', () => {
    for (const doc of [
      '[CLARIFIED] [CLA\u0301RIFY] [CLA RIFY] [CLA\u00a0RIFY] [CLA\nRIFY] [CLARIFY \u200b CLARIFY [\u0421LARIFY',
      '\uff3bCLARIFIED\uff3d [\u0421LARIFI] \u3010CLARIFY\u3011',
    ])
      expect(notes(doc)).toEqual([]);
  });
});

// Pieces of disguises and of plain prose: marker words, look-alikes, invisibles, fullwidth letters.
const PIECES = [
  'clarify',
  'CLARIFY',
  'Contested',
  'CLA',
  'RIFY',
  'CONT',
  'ESTED',
  '\u200d',
  '\u200b',
  '\u2060',
  '\u00ad',
  '\u0421',
  '\u0410',
  '\u0406',
  '\u03f9',
  '\u03dc',
  '\u04c0',
  '\u017f',
  '\u1d04\u029f',
  '\uff23\uff2c',
  ' ',
  '\n',
  '.',
  '-',
  '&#8203;',
  '*',
  'word',
];

describe('folding never creates a note out of a word without brackets', () => {
  it('random prose of marker words, look-alikes and invisibles, in every syntax, holds no note', () => {
    const next = seeded(17);
    for (let n = 0; n < 1000; n++) {
      let doc = '';
      const len = 1 + Math.floor(next() * 30);
      for (let k = 0; k < len; k++) doc += PIECES[Math.floor(next() * PIECES.length)];
      for (const syntax of ['markdown', 'plain', 'yaml'] as const) expect(scanNotes(doc, { syntax }), JSON.stringify(doc)).toEqual([]);
    }
  });

  it('with brackets, a note is found exactly where the folded spelling is a marker', () => {
    const next = seeded(29);
    // The reference fold, written out independently: drop invisibles, NFKC, the look-alikes used here.
    const fold = (s: string): string =>
      s
        .replace(/\u200b|\u200d|\u2060|\u00ad/g, '')
        .normalize('NFKC')
        .replace(/\u0421/g, 'C')
        .replace(/\u0410/g, 'A')
        .replace(/\u0406/g, 'I')
        .replace(/\u0415/g, 'E');
    // A marker word (or a near miss), with invisibles, look-alikes, fullwidth letters and stray letters put in.
    const bases = ['CLARIFY', 'CONTESTED', 'CLARIFIED', 'CLARIF', 'CONTEST'];
    const inserts = ['\u200d', '\u200b', '\u00ad', '\u2060', 'x', ' ', '-'];
    const swaps: Record<string, string[]> = { C: ['\u0421', '\uff23'], A: ['\u0410'], I: ['\u0406', '\uff29'], L: ['\uff2c'], E: ['\u0415'] };
    let found = 0;
    for (let n = 0; n < 3000; n++) {
      const letters = [...bases[Math.floor(next() * bases.length)]!].map((c) => {
        const options = swaps[c];
        return options && next() < 0.3 ? options[Math.floor(next() * options.length)]! : c;
      });
      const extra = Math.floor(next() * 3);
      for (let k = 0; k < extra; k++) letters.splice(Math.floor(next() * (letters.length + 1)), 0, inserts[Math.floor(next() * inserts.length)]!);
      const name = letters.join('');
      const open = next() < 0.5 ? '[' : '\uff3b';
      const doc = `Text.\n${open}${name}] after\n`;
      const expected = /^(?:CLARIFY|CONTESTED)$/.test(fold(name)) ? 1 : 0;
      found += expected;
      expect(scanNotes(doc, { syntax: 'plain' }).length, JSON.stringify(doc)).toBe(expected);
    }
    expect(found).toBeGreaterThan(500);
    expect(found).toBeLessThan(2500);
  });
});
