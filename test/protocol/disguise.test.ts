import { describe, expect, it } from 'vitest';
import { HOSTILE_DISGUISES } from '../fixtures/hostile-disguises.mjs';
import { lintNotes } from '../../src/protocol/lint.js';
import { LOOK_ALIKE_GROUPS, LOOK_ALIKE_MARKS } from '../../src/protocol/look-alikes.js';
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

describe('look-alikes of the hyphen and the underscore of a configured name', () => {
  const M = { markers: ['TODO-LEGAL', 'NEEDS_DATA'] };
  it('each dash, minus and hyphen Unicode lists as a hyphen, and the compatibility forms, read as -', () => {
    for (const c of [...LOOK_ALIKE_MARKS['-']!, '\ufe63', '\uff0d'])
      expect(notes(`${ABOVE}[TODO${c}LEGAL] check\n`, M), `U+${c.codePointAt(0)!.toString(16)}`).toEqual([
        expect.stringMatching(/^TODO-LEGAL 2:1 \(U\+[0-9A-F]{4} \((?:an? [A-Za-z' ]+ like -|a compatibility form of -)\) after "\[TODO"\)$/),
      ]);
    expect(notes(`${ABOVE}[TODO\u2010LEGAL] check\n`, M)).toEqual(['TODO-LEGAL 2:1 (U+2010 (a dash like -) after "[TODO")']);
    expect(scanNotes(`${ABOVE}[todo\u2212legal] check\n`, M)[0]!.text).toBe('[todo-legal] check');
  });

  it('each look-alike of the underscore reads as _', () => {
    for (const c of [...LOOK_ALIKE_MARKS._!, '\uff3f', '\ufe4d'])
      expect(notes(`${ABOVE}[NEEDS${c}DATA] x\n`, M).map((n) => n.slice(0, 15))).toEqual(['NEEDS_DATA 2:1 ']);
  });

  it('a soft hyphen reads as nothing, or as the hyphen it shows where the line breaks at it', () => {
    expect(notes(`${ABOVE}[TODO\u00adLEGAL] [TODO-\u00adLEGAL] [TODO\u00ad\u00adLEGAL] [CLA\u00adRIFY] x\n`, M).map((n) => n.slice(0, 15))).toEqual([
      'TODO-LEGAL 2:1 ',
      'TODO-LEGAL 2:14',
      'TODO-LEGAL 2:28',
      'CLARIFY 2:42 (U',
    ]);
    expect(notes(`${ABOVE}[CLARI\u00adFY] [TO\u00adDOLEGAL] x\n`, M)).toEqual(['CLARIFY 2:1 (U+00AD (invisible) after "[CLARI")']);
  });

  it('a dash is no letter, and a name without a hyphen takes none', () => {
    expect(notes(`${ABOVE}[TODO\u2010\u2010LEGAL] [TODOLEGAL\u2010] [CLA\u2010RIFY] [TODO\u2053LEGAL] x\n`, M)).toEqual([]);
  });
});

describe('invisible padding of any length', () => {
  it('a run of invisibles between letters, however long, is a note, said once with its count', () => {
    for (const n of [511, 513, 600, 100_000])
      expect(notes(`${ABOVE}[C${'\u200b'.repeat(n)}ONTESTED] Too vague.\n`)).toEqual([`CONTESTED 2:1 (${n} × U+200B (invisible) after "[C")`]);
    expect(notes(`${ABOVE}[C${'\u200b\u200c\u2060'.repeat(300)}ONTESTED] x\n`)).toEqual([
      'CONTESTED 2:1 (300 × U+200B (invisible) after "[C", 300 × U+200C (invisible) after "[C", 300 × U+2060 (invisible) after "[C")',
    ]);
  });

  it('padding does not cross a line break, and padding alone makes no marker', () => {
    expect(notes(`${ABOVE}[C${'\u200b'.repeat(600)}\nONTESTED] x [${'\u200b'.repeat(600)}] [C${'\u200b'.repeat(600)}\n`)).toEqual([]);
  });
});

describe('markdown: inline HTML that shows nothing between the letters', () => {
  it('a comment, an empty element and <wbr> are read through', () => {
    expect(notes(`${ABOVE}[CON<!-- x -->TESTED] Too vague.\n`)).toEqual(['CONTESTED 2:1 (<!-- x --> (an HTML comment) after "[CON")']);
    expect(notes(`${ABOVE}[CON<span></span>TESTED] Too vague.\n`)).toEqual(['CONTESTED 2:1 (<span></span> (HTML that shows nothing) after "[CON")']);
    expect(notes(`${ABOVE}[CLA<wbr>RIFY] Which?\n`)).toEqual(['CLARIFY 2:1 (<wbr> (HTML that shows nothing) after "[CLA")']);
    for (const marker of [
      '[CLA<WBR/>RIFY]',
      '[<a name="x"></a>CLARIFY]',
      '[CLARIFY<!---->]',
      '[CLA<!-->RIFY]',
      '[CLA<!--->RIFY]',
      "[CL<b class='x'></B>A<i></i>RIFY]",
      '\\[CLA<!-- x -->RIFY\\]',
      '&#91;CLA<!-- x -->RIFY&#93;',
      '[CLA\u200b<!-- x -->RIFY]',
    ])
      expect(
        notes(`${ABOVE}${marker} Which?\n`).map((n) => n.slice(0, 10)),
        marker,
      ).toEqual(['CLARIFY 2:']);
    expect(scanNotes(`${ABOVE}[CON<!-- x -->TESTED] Too vague.\n`)[0]!.text).toBe('[CONTESTED] Too vague.');
  });

  it('not read through: HTML that shows something or wraps letters, a comment over a line break, plain text, JSON, YAML, code', () => {
    for (const marker of [
      '[CON<span>TESTED]',
      '[CON</span>TESTED]',
      '[<b>CON</b>TESTED]',
      '[CON<br>TESTED]',
      '[CON<q></q>TESTED]',
      '[CON<img src=x>TESTED]',
      '[CON<span></b>TESTED]',
      '[CON<span/>TESTED]',
      '[CON<!-- x\n-->TESTED]',
      '[CON<!-- x TESTED]',
      '[CON<span title="a>b"></span>TESTED]',
      '`[CON<!-- x -->TESTED]`',
      '[CON{/* x */}TESTED]',
    ])
      expect(notes(`${ABOVE}${marker} x\n`), marker).toEqual([]);
    for (const syntax of ['plain', 'json', 'yaml'] as const) expect(notes(`${ABOVE}[CON<!-- x -->TESTED] x\n`, { syntax })).toEqual([]);
  });

  it('MDX: a self-closing element and an expression holding only a comment are read through too', () => {
    expect(notes(`${ABOVE}[CON{/* x */}TESTED] a [CON<span />TESTED] b [CON<!-- x -->TESTED] c\n`, { mdx: true }).map((n) => n.slice(0, 13))).toEqual([
      'CONTESTED 2:1',
      'CONTESTED 2:2',
      'CONTESTED 2:4',
    ]);
    expect(notes(`${ABOVE}[CON{x}TESTED] [CON<Span />TESTED] [CON{/* x */ y}TESTED]\n`, { mdx: true })).toEqual([]);
  });
});

describe('JSON: a string escape is the character it stands for', () => {
  it('\\u escapes of letters, brackets and look-alikes make a marker; an escaped backslash does not', () => {
    const doc =
      '{\n  "a": 1,\n  "a.note": "[\\u0043ONTESTED] Too vague.",\n  "b": "\\u005bCLARIFY\\u005d x",\n  "c": "[\\ud835\\udc02LARIFY] y",\n  "d": "\\\\u005bCLARIFY] z"\n}\n';
    expect(notes(doc, { syntax: 'json' })).toEqual([
      'CONTESTED 3:14 (\\u0043 (an escape of C) after "[")',
      'CLARIFY 4:9 (\\u005b (an escape of [) as the opening bracket, \\u005d (an escape of ]) after "[CLARIFY")',
      'CLARIFY 5:9 (U+1D402 (a compatibility form of C) after "[")',
    ]);
    expect(scanNotes(doc, { syntax: 'json' })[0]).toMatchObject({ text: '[CONTESTED] Too vague.', canonical: true });
  });

  it('in other syntaxes an escape is the text it is written with', () => {
    for (const syntax of ['plain', 'yaml', 'markdown'] as const) expect(notes('{"k": "[\\u0043ONTESTED] x"}\n', { syntax })).toEqual([]);
    // YAML's double-quoted escapes are not read (docs/scanning.md).
    expect(notes('a: 1\nb: "\\x5bCONTESTED] Too vague."\n', { syntax: 'yaml' })).toEqual([]);
  });
});

describe('markdown: a letter of the name written as a character reference', () => {
  it('renders as the letter, so the marker is a note, and the reference is named', () => {
    expect(notes(`${ABOVE}[&#67;LARIFY] Which? [CL&#x41;RIFY] This? [CLAR&lbrack;IFY] no\n`)).toEqual([
      'CLARIFY 2:1 (&#67; (a character reference to C) after "[")',
      'CLARIFY 2:22 (&#x41; (a character reference to A) after "[CL")',
    ]);
    expect(scanNotes(`${ABOVE}[&#67;LARIFY] Which?\n`)[0]!.text).toBe('[CLARIFY] Which?');
    for (const syntax of ['plain', 'json', 'yaml'] as const) expect(notes(`${ABOVE}[&#67;LARIFY] x\n`, { syntax })).toEqual([]);
  });
});

describe('bidi reordering: a marker that shows once a right-to-left run is reversed', () => {
  // Embeddings and overrides, closed by PDF; isolates, closed by PDI.
  const [RLE, RLO, LRO, PDF, RLI, LRI, PDI] = ['\u202b', '\u202e', '\u202d', '\u202c', '\u2067', '\u2066', '\u2069'];
  const REPRO = `We retry 5 times.\n${RLO}[YFIRALC]${PDF} Which unit? (A) ms (B) s\n`;
  const ONE = 'U+202E (right-to-left override) reversing "[YFIRALC]"';

  it('an override over [YFIRALC] shows [CLARIFY]: a note in plain text and markdown, at the override, canonical, with the text after it', () => {
    for (const syntax of ['plain', 'markdown'] as const) {
      const found = scanNotes(REPRO, { syntax });
      expect(found, syntax).toEqual([
        expect.objectContaining({
          kind: 'CLARIFY',
          line: 2,
          column: 1,
          offset: 18,
          canonical: true,
          text: '[CLARIFY] Which unit? (A) ms (B) s',
          disguise: ONE,
        }),
      ]);
      expect(lintNotes(found, REPRO).map((p) => `${p.rule}: ${p.message}`)).toEqual([
        `marker-spelling: [CLARIFY] is disguised by ${ONE}: it reads as a note, and counts as one`,
      ]);
    }
  });

  it('an embedding or an isolate, closed or open to the line end, is read the same way', () => {
    expect(notes(`${ABOVE}${RLE}[YFIRALC]${PDF} a or b?\n`)).toEqual(['CLARIFY 2:1 (U+202B (right-to-left embedding) reversing "[YFIRALC]")']);
    expect(notes(`${ABOVE}${RLI}[DETSETNOC]${PDI} Too vague.\n`)).toEqual(['CONTESTED 2:1 (U+2067 (right-to-left isolate) reversing "[DETSETNOC]")']);
    expect(scanNotes(`${ABOVE}${RLO}[yfiralc] x or y?\n`)[0]).toMatchObject({ kind: 'CLARIFY', text: '[clarify]' });
    // Open to the line's end, the rest of the line shows reversed, before the marker: the note's text is what shows after it.
    expect(scanNotes(`${ABOVE}${RLO}s (B) sm (A) ?tinu hcihW [YFIRALC]\n`)[0]).toMatchObject({
      column: 1,
      canonical: true,
      text: '[CLARIFY] Which unit? (A) ms (B) s',
    });
  });

  it('the other disguises fold in the reversed reading too, and each is named', () => {
    expect(notes(`${ABOVE}${RLO}[YF\u0406RALC]${PDF} x or y?\n`)).toEqual([
      'CLARIFY 2:1 (U+202E (right-to-left override) reversing "[YF\u0406RALC]", U+0406 (a Cyrillic letter like I or l) after "[CLAR")',
    ]);
    expect(notes(`${ABOVE}${RLO}\uff3bYFIR\u200bALC]${PDF} x\n`)).toEqual([
      'CLARIFY 2:1 (U+202E (right-to-left override) reversing "\uff3bYFIRALC]", U+200B (invisible) after "[CLA", U+FF3B (a compatibility form of [) after "[CLARIFY")',
    ]);
    expect(notes(`${ABOVE}&#x202E;[YFIR&#x41;LC]&#x202C; x\n`)).toEqual([
      'CLARIFY 2:1 (U+202E (right-to-left override, written &#x202E;) reversing "[YFIR&#x41;LC]", &#x41; (a character reference to A) after "[CL")',
    ]);
  });

  it('configured markers are read reversed too', () => {
    const M = { markers: ['RISK', 'TODO-LEGAL'] };
    expect(notes(`${ABOVE}${RLO}[KSIR]${PDF} x\n`, M)).toEqual(['RISK 2:1 (U+202E (right-to-left override) reversing "[KSIR]")']);
    expect(notes(`${ABOVE}${RLO}[LAGEL\u2010ODOT]${PDF} x\n`, M).map((n) => n.slice(0, 14))).toEqual(['TODO-LEGAL 2:1']);
    expect(notes(`${ABOVE}${RLO}[KSIR]${PDF} x\n`)).toEqual([]);
  });

  it('no note: a run that shows no marker, a left-to-right run, a run closed before the marker', () => {
    for (const doc of [
      `${RLO}no marker [here]${PDF} and [YFIRALC] after it`,
      `${RLO}]YFIRALC[${PDF} x`,
      `${RLO}[YFIRA LC]${PDF} x`,
      `${LRO}[YFIRALC]${PDF} x`,
      `${LRI}[YFIRALC]${PDI} x`,
      `${RLO}${PDF}[YFIRALC] x`,
      `${RLO}x${PDF} [YFIRALC] x`,
      `[YFIRALC] ${RLO}x`,
    ])
      for (const syntax of ['markdown', 'plain'] as const) expect(notes(`${ABOVE}${doc}\n`, { syntax }), `${syntax}: ${JSON.stringify(doc)}`).toEqual([]);
  });

  it('a marker spelled plainly inside a run is one note, as before, however it shows', () => {
    expect(notes(`${ABOVE}${RLO}[CLARIFY]${PDF} x\n`)).toEqual(['CLARIFY 2:2']);
    expect(notes(`${ABOVE}${RLO}[ABBA]${PDF} x\n`, { markers: ['ABBA'] })).toEqual(['ABBA 2:2']);
    expect(notes(`${ABOVE}${RLO}[CLA\u200bRIFY]${PDF} x\n`)).toEqual(['CLARIFY 2:2 (U+200B (invisible) after "[CLA")']);
  });

  it('an override in code or a comment is hidden like any other marker', () => {
    expect(notes(`${ABOVE}\`${RLO}[YFIRALC]${PDF}\` x\n\n\`\`\`\n${RLO}[YFIRALC]${PDF}\n\`\`\`\n\n<!-- ${RLO}[YFIRALC] -->\n`)).toEqual([]);
    expect(notes(`${ABOVE}\`${RLO}[YFIRALC]${PDF}\` x\n`, { syntax: 'plain' })).toHaveLength(1);
    // What decides is where the marker's characters are: a control in a code span goes on reversing the text after it.
    expect(notes(`${ABOVE}\`${RLO}\` [YFIRALC] x\n`).map((n) => n.slice(0, 11))).toEqual(['CLARIFY 2:2']);
    expect(notes(`${ABOVE}${RLO}x \`[YFIRALC]\` y\n`)).toEqual([]);
  });

  it('JSON: in a string, written or as an escape; an escaped backslash is no escape', () => {
    expect(scanNotes(`{"a": "${RLO}[YFIRALC]${PDF} Which?"}\n`, { syntax: 'json' })[0]).toMatchObject({
      kind: 'CLARIFY',
      column: 8,
      canonical: true,
      text: '[CLARIFY] Which?',
      disguise: ONE,
    });
    expect(notes('{"a": "\\u202e[YFIRALC]\\u202c Which?"}\n', { syntax: 'json' })).toEqual([
      'CLARIFY 1:8 (U+202E (right-to-left override, written \\u202e) reversing "[YFIRALC]")',
    ]);
    expect(notes('{"a": "\\\\u202e[YFIRALC] x"}\n', { syntax: 'json' })).toEqual([]);
    for (const syntax of ['plain', 'markdown', 'yaml'] as const) expect(notes('{"a": "\\u202e[YFIRALC] x"}\n', { syntax })).toEqual([]);
  });

  it('two markers in one run: each a note, in text order, each with what shows after it', () => {
    const found = scanNotes(`${ABOVE}${RLO}?b ro a [YFIRALC] .eugav ooT [DETSETNOC]${PDF} Rest.\n`);
    expect(found.map((n) => [n.kind, n.column, n.text])).toEqual([
      ['CONTESTED', 1, '[CONTESTED] Too vague.'],
      ['CLARIFY', 10, '[CLARIFY] a or b? Rest.'],
    ]);
  });

  it('a marker partly outside the run, and one whose pieces isolates reorder', () => {
    expect(notes(`${ABOVE}[CLA${RLO}[YFIR${PDF} x or y?\n`)).toEqual(['CLARIFY 2:1 (U+202E (right-to-left override) reversing "[YFIR")']);
    // A tab is at the line's level (UAX #9, L1): the run before it is reversed on its own.
    expect(notes(`${ABOVE}[CLA${RLO}[YFIR\tlater\n`)).toEqual(['CLARIFY 2:1 (U+202E (right-to-left override) reversing "[YFIR")']);
    expect(notes(`${ABOVE}${RLI}${LRI}RIFY]${PDI}${LRI}[CLA${PDI}${PDI} x or y?\n`)).toEqual([
      'CLARIFY 2:1 (U+2067 (right-to-left isolate) reversing "RIFY][CLA")',
    ]);
    // Overrides are removed before reordering (X9): the two left-to-right pieces are one run, shown as written.
    expect(notes(`${ABOVE}${RLO}${LRO}RIFY]${PDF}${LRO}[CLA${PDF}${PDF} x\n`)).toEqual([]);
  });

  it('markdown: a run left open goes on over the paragraph, not past a blank line; plain text ends it with the line', () => {
    expect(notes(`${ABOVE}${RLO}\n[YFIRALC] x\n`)).toEqual(['CLARIFY 3:1 (U+202E (right-to-left override) reversing "[YFIRALC]")']);
    expect(notes(`${ABOVE}${RLO}\n\n[YFIRALC] x\n`)).toEqual([]);
    expect(notes(`${ABOVE}${RLO}\n[YFIRALC] x\n`, { syntax: 'plain' })).toEqual([]);
    expect(notes(`${ABOVE}${RLO}\r\n[YFIRALC] x\r\n`)).toHaveLength(1);
    // A heading is a paragraph of one line, and a list item, a quote or a heading starts a block of its own.
    expect(notes(`# Intro ${RLO}AAA\n[YFIRALC] text\n`)).toEqual([]);
    expect(notes(`- one ${RLO}AAA\n- [YFIRALC] text\n`)).toEqual([]);
    expect(notes(`One ${RLO}AAA\n> [YFIRALC] text\n`)).toEqual([]);
    expect(notes(`One ${RLO}AAA\n## [YFIRALC] text\n`)).toEqual([]);
  });

  it('markdown: <bdo dir="rtl"> reverses what it holds as an override does, up to </bdo>; ltr, an empty one, code, MDX and plain text do not', () => {
    const BDO = 'U+202E (right-to-left override, written <bdo dir="rtl">) reversing "[YFIRALC]"';
    expect(notes(`${ABOVE}<bdo dir="rtl">[YFIRALC]</bdo> Which one? (A) x (B) y\n`)).toEqual([`CLARIFY 2:1 (${BDO})`]);
    expect(scanNotes(`${ABOVE}<bdo dir="rtl">[YFIRALC]</bdo> Which one? (A) x (B) y\n`)[0]!.text).toBe('[CLARIFY] Which one? (A) x (B) y');
    // Any case, unquoted, other attributes; what it reverses around the marker shows reversed too.
    expect(notes(`${ABOVE}<BDO class=x DIR=RTL>a [DETSETNOC] b</BDO> end\n`)).toEqual([
      'CONTESTED 2:1 (U+202E (right-to-left override, written <BDO class=x DIR=RTL>) reversing "[DETSETNOC]")',
    ]);
    // Left open, it goes on to the end of the paragraph, as a page shows it.
    expect(notes(`${ABOVE}<bdo dir='rtl'>open\n[YFIRALC] x\n`)).toHaveLength(1);
    expect(notes(`${ABOVE}<bdo dir='rtl'>open\n\n[YFIRALC] x\n`)).toEqual([]);
    // A quoted value may hold `>`; `/>` opens it as HTML does; the first `dir` counts.
    expect(notes(`${ABOVE}<bdo dir="rtl" title=">">[YFIRALC]</bdo> x\n`)).toHaveLength(1);
    expect(notes(`${ABOVE}<bdo dir="rtl"/>[YFIRALC]\n`)).toHaveLength(1);
    expect(notes(`${ABOVE}<bdo title="dir=rtl" dir=ltr dir=rtl>[YFIRALC]</bdo> x\n`)).toEqual([]);
    // Where `<bdo` is text, not markup: in a code span (on its line or on a line above in the paragraph), escaped,
    // inside another tag's attribute.
    for (const doc of [
      'Wrap it in `<bdo dir="rtl">` and [YFIRALC] stays as written.\n',
      'Code ``<bdo dir="rtl">``\nthen [YFIRALC] x.\n',
      '\\<bdo dir="rtl">[YFIRALC]\\</bdo> is literal text.\n',
      '<img alt="<bdo dir=rtl>"> [YFIRALC]\n',
      '<span title="<bdo dir=rtl>">x</span> [YFIRALC]\n',
      '<a href="<bdo dir=rtl>">[YFIRALC]</a>\n',
    ])
      expect(notes(`${ABOVE}\n${doc}`), doc).toEqual([]);
    for (const doc of [
      `${ABOVE}<bdo dir="ltr">[YFIRALC]</bdo> x\n`,
      `${ABOVE}<bdo>[YFIRALC]</bdo> x\n`,
      `${ABOVE}<bdo dir="rtl"></bdo>[YFIRALC] x\n`,
      `${ABOVE}<bdo dir="rtl">x</bdo> [YFIRALC] x\n`,
      `${ABOVE}\`<bdo dir="rtl">[YFIRALC]</bdo>\` x\n`,
      `${ABOVE}<bdox dir="rtl">[YFIRALC]</bdox> x\n`,
    ])
      expect(notes(doc), doc).toEqual([]);
    expect(notes(`${ABOVE}<bdo dir="rtl">[YFIRALC]</bdo> x\n`, { syntax: 'plain' })).toEqual([]);
    expect(notes(`${ABOVE}<bdo dir="rtl">[YFIRALC]</bdo> x\n`, { mdx: true })).toEqual([]);
  });

  it('random lines of controls, brackets and letters: no throw, notes in text order, each starting with its marker', () => {
    const next = seeded(41);
    const bits = [
      RLO,
      RLE,
      RLI,
      LRO,
      LRI,
      PDF,
      PDI,
      '\u2068',
      '[',
      ']',
      '\uff3b',
      'YFIRALC',
      'CLARIFY',
      'DETSETNOC',
      'C',
      'LA',
      '\u200b',
      ' ',
      '\t',
      '\n',
      'x',
      '&#x202e;',
      '\\u202e',
      '<bdo dir="rtl">',
      '</bdo>',
    ];
    let seen = 0;
    for (let n = 0; n < 1500; n++) {
      let doc = '';
      const len = 1 + Math.floor(next() * 24);
      for (let k = 0; k < len; k++) doc += bits[Math.floor(next() * bits.length)];
      for (const syntax of ['markdown', 'plain', 'json'] as const) {
        const found = scanNotes(doc, { syntax });
        seen += found.length;
        for (let k = 0; k < found.length; k++) {
          expect(found[k]!.text.startsWith(`[${found[k]!.kind}]`), JSON.stringify(doc)).toBe(true);
          if (k > 0) expect(found[k]!.offset, JSON.stringify(doc)).toBeGreaterThan(found[k - 1]!.offset);
        }
      }
    }
    expect(seen).toBeGreaterThan(20);
  });
});

// Speed is measured by `npm run bench` (bench/scanner-hostile.mjs, at 1 and 4 MB), never
// asserted here: these check that 256 KB of each hostile shape is scanned whole and gives
// well-formed notes.
describe('the disguise scan on hostile documents', () => {
  const scanned = new Map<string, ReturnType<typeof scanNotes>>();
  const scan = (name: string, make: (bytes: number) => string, opts?: ScanOptions) => {
    let found = scanned.get(name);
    if (!found) scanned.set(name, (found = scanNotes(make(256 * 1024), opts ?? {})));
    return found;
  };
  it.each(HOSTILE_DISGUISES)('%s', (name, make, opts) => {
    const found = scan(name, make, opts);
    for (let k = 0; k < found.length; k++) {
      expect(found[k]!.text.startsWith(`[${found[k]!.kind}]`)).toBe(true);
      expect(found[k]!.disguise).toBeDefined();
      if (k > 0) expect(found[k]!.offset).toBeGreaterThan(found[k - 1]!.offset);
    }
  });
  it('of them, padding inside one marker is that one note, and openers, invisibles and unclosed tags alone are none', () => {
    const count = new Map(HOSTILE_DISGUISES.map(([name, make, opts]) => [name, scan(name, make, opts).length]));
    expect(count.get('invisible padding inside one marker')).toBe(1);
    for (const name of [
      'invisibles alone',
      'invisibles after an opener and a letter',
      'openers each with an invisible',
      'isolates one inside another, repeated',
      '<bdo dir="rtl"> left open again and again over openers, on one line',
      '<bdo dir=rtl> on every line of a paragraph',
      'marker letters before a <bdo dir=rtl>, repeated',
    ])
      expect(count.get(name), name).toBe(0);
    for (const [name, n] of count) if (name.includes('repeated on')) expect(n, name).toBe(0);
  });
});
