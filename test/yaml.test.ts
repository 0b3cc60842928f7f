/** The record writer: whatever it writes, the yaml library reads back as the same data. */
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { toYaml } from '../src/yaml.js';

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
