/**
 * The record writer: whatever it writes, the yaml library reads back as the same data; and
 * the reader of its own output: it reads exactly what the library reads, or leaves the text
 * to the library.
 */
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { readOwnYaml, readYaml, toYaml } from '../src/yaml.js';

const TRICKY = [
  '',
  ' ',
  'plain words',
  'trailing ',
  ' leading',
  'a: b',
  'a #b',
  '#x',
  '- item',
  '? key',
  '[1, 2]',
  '{a: 1}',
  '*alias',
  '&anchor',
  '!tag',
  '%directive',
  '@at',
  '`tick',
  '"quoted"',
  "'single'",
  'true',
  'No',
  'null',
  '~',
  '0',
  '1e3',
  '0x1F',
  '.inf',
  '-.inf',
  '.nan',
  '2026-12-01T13:22:10.041Z',
  '01M8RWA5ZST3F9V3AD1T653VRA',
  'line\nbreak',
  'cr\rlf\r\n',
  'tab\there',
  'back\\slash',
  'nul\u0000',
  'del\u007f and c1 \u0085',
  'ls\u2028ps\u2029',
  '\ufeffbom',
  'emoji 🙂 and ünïcödé',
  'lone \ud800 surrogate',
  '/tmp/lsb/w/doc.md',
  'reviewer/claude',
  'As reviewer, revise original.md on pass 1 of 2.',
  '[CONTESTED] note',
  '---',
  '...',
  'key:',
  'x:y',
];

describe('toYaml', () => {
  it.each(TRICKY.map((s) => [JSON.stringify(s), s]))('a string reads back as itself: %s', (_shown, s) => {
    expect(parse(toYaml({ s, list: [s], nested: { s } }))).toEqual({ s, list: [s], nested: { s } });
  });

  it('maps, lists of maps, number lists, empty collections, numbers, booleans and null', () => {
    const value = {
      request: {
        id: 'x',
        lines: [1, 40],
        files: [
          { path: 'a.md', lines: [1, 5] },
          { path: 'b.md', purpose: null },
        ],
        empty: [],
        none: {},
      },
      response: {
        ok: true,
        cost: 0.0412,
        tiny: 1e-7,
        big: 12345678901,
        negative: -3,
        nested: [
          [1, 2],
          ['a', { b: 'c' }],
        ],
      },
      outcome: null,
    };
    const text = toYaml(value);
    expect(parse(text)).toEqual(value);
    expect(text).toContain('  lines: [1, 40]\n');
    expect(text).toContain('  files:\n    - path: a.md\n      lines: [1, 5]\n');
  });

  it('random strings of YAML-significant characters read back as themselves', () => {
    const alphabet = [...'ab :#-?[]{},&*!|>\'"%@`\\\n\r\t\u0000\u0085\u2028 .0123456789eE+~'];
    let seed = 7;
    const next = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let i = 0; i < 500; i++) {
      const s = Array.from({ length: next() % 12 }, () => alphabet[next() % alphabet.length]).join('');
      expect(parse(toYaml({ s })), JSON.stringify(s)).toEqual({ s });
    }
  });
});

/** What the library makes of a text: its value, or that it throws. */
function library(text: string): { value: unknown } | { throws: true } {
  try {
    return { value: parse(text) };
  } catch {
    return { throws: true };
  }
}

const RECORD_LIKE = {
  request: {
    id: '01M8W0J1JZRNC8ZH934F5SCTW7',
    protocol_version: 1,
    goal: 'As reviewer, revise original.md on pass 1 of 10.',
    plan_ancestry: { run_id: 'doc-20261202-183405-EE83AC', document: '/tmp/x y/doc.md', attempt: { kind: 'pass', index: 0 }, parent_dispatch: null },
    context: {
      files: [
        { path: 'original.md', purpose: 'document', sha256: 'cf8df21540cd95f937e4b59398478b63ce73ded106b1ceb588dbf9b389ec4a73', lines: [1, 81] },
        {
          path: 'pass-1-reviewer-mock.prompt.md',
          purpose: 'prompt',
          sha256: '3b05f65d78b929c4f012b2d4efbf29edef1b4b8f3995d10c4ae8744f3203b694',
          lines: [1, 120],
        },
      ],
    },
    'max-turns': 3,
  },
  response: {
    duration_ms: 17,
    cost_usd: 0.0123,
    tiny: 1e-7,
    huge: 1e21,
    negative: -3.5,
    ok: true,
    done: false,
    findings: [{ id: 'x/001', message: '[CONTESTED] The opening: vague. State "what" #1.', line_range: [4, 4], citations: { evidence: [{ file: 'a.md' }] } }],
    resolved: [],
    self_assessment: { limitations: ['bounce does not ask agents to assess themselves.'], unknowns: [] },
    empty: {},
    error: null,
  },
};

describe('readOwnYaml and readYaml', () => {
  it.each(TRICKY.map((s) => [JSON.stringify(s), s]))('reads what toYaml writes without the library, as the library does: %s', (_shown, s) => {
    for (const value of [{ s, list: [s], nested: { s } }, { [s.trim() || 'k']: s }]) {
      const text = toYaml(value);
      expect(library(text)).toStrictEqual({ value });
      if (Object.keys(value).includes('s')) expect(readOwnYaml(text)).toStrictEqual(value);
      expect(readYaml(text)).toStrictEqual(parse(text));
    }
  });

  it('reads a record-shaped value without the library, as the library does', () => {
    const text = toYaml(RECORD_LIKE);
    expect(readOwnYaml(text)).toStrictEqual(RECORD_LIKE);
    expect(readOwnYaml(text)).toStrictEqual(parse(text));
  });

  it('leaves every other form of YAML to the library, which reads it as before', () => {
    const others = [
      'a: 1 # a comment\n',
      '# comment\na: 1\n',
      'a: 1\n\nb: 2\n',
      'a: some words\n  continued here\n',
      'a: 1\na: 2\n',
      'a: &x 1\nb: *x\n',
      'a: yes\nb: on\n',
      'a: 0x1F\nb: 0o17\nc: +3\nd: 1_000\ne: .5\n',
      "a: 'single'\n",
      'a:\n- 1\n- 2\n',
      'a: {b: 1}\nc: [x, y]\n',
      'a: 1\r\nb: 2\r\n',
      'a:\t1\n',
      '---\na: 1\n',
      'a: 1\n...\n',
      '__proto__: 1\n',
      'a: "two\n  lines"\n',
      'a:   spaced\n',
      'a: \n',
      'a:\n',
      '? a\n: 1\n',
      '"quoted key": 1\n',
      'a: "\\x41\\e"\n',
      '- 1\n- 2\n',
      'just a string\n',
      '',
      '{}\n',
      'a:\n  - - 1\n',
      'a:\n  b: 1\n c: 2\n',
      'a:\n    b: 1\n  c: 2\n',
      'a: null\nb: Null\nc: ~\nd: TRUE\n',
      'a: -0\nb: 1.50\nc: 1e+3\n',
      'a: [1,2]\nb: [1, x]\n',
      'a: "x" y\n',
      'a: \u00a0x\n',
      'a:\n  \u00a0b: 1\n',
    ];
    for (const text of others) {
      const own = readOwnYaml(text);
      const lib = library(text);
      // The fast path may read a form of its own output hidden among these, but only as the library does.
      if (own !== undefined) expect(lib, JSON.stringify(text)).toStrictEqual({ value: own });
      if ('throws' in lib) expect(() => readYaml(text), JSON.stringify(text)).toThrow();
      else expect(readYaml(text), JSON.stringify(text)).toStrictEqual(lib.value);
    }
    expect(others.filter((t) => readOwnYaml(t) !== undefined)).toEqual(['a: null\nb: Null\nc: ~\nd: TRUE\n', 'a: -0\nb: 1.50\nc: 1e+3\n']);
  });

  it('on thousands of damaged records, reads a text as the library does or leaves it to the library', () => {
    const base = toYaml(RECORD_LIKE);
    const alphabet = [...' :#-?[]{},&*!|>\'"%@`\\\n\t.0123456789eE+~ab'];
    let seed = 11;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    let own = 0;
    for (let i = 0; i < 3000; i++) {
      let text = base;
      for (let edits = 1 + next(3); edits > 0; edits--) {
        const at = next(text.length);
        const op = next(3);
        if (op === 0) text = text.slice(0, at) + alphabet[next(alphabet.length)] + text.slice(at);
        else if (op === 1) text = text.slice(0, at) + text.slice(at + 1 + next(4));
        else {
          // a line moved by two columns, or duplicated
          const start = text.lastIndexOf('\n', at) + 1;
          const end = text.indexOf('\n', at) + 1 || text.length;
          text = next(2) ? `${text.slice(0, start)}  ${text.slice(start)}` : text.slice(0, end) + text.slice(start, end) + text.slice(end);
        }
      }
      const read = readOwnYaml(text);
      if (read === undefined) continue;
      own++;
      expect(library(text), JSON.stringify(text)).toStrictEqual({ value: read });
    }
    // Many damaged texts are still valid records of the writer's form; the comparison covered them.
    expect(own).toBeGreaterThan(300);
  });
});
