import { describe, expect, it } from 'vitest';
import { isBounceError } from '../../src/errors.js';
import { parseVerdicts } from '../../src/grade/from-file.js';

const KNOWN = ['01JF3Q8X9ZK2M4N6P8R0T2V4W6/001', '01JF3Q8X9ZK2M4N6P8R0T2V4W6/002'];
const fails = (text: string): string => {
  try {
    parseVerdicts(text, 'v.yaml', KNOWN);
  } catch (err) {
    if (!isBounceError(err) || err.exitCode !== 2) throw err;
    return err.line;
  }
  throw new Error('no error');
};

describe('parseVerdicts', () => {
  it('reads a map of finding id to verdict', () => {
    expect(parseVerdicts(`${KNOWN[0]}: accepted\n${KNOWN[1]}: skipped\n`, 'v.yaml', KNOWN)).toEqual(
      new Map([
        [KNOWN[0], 'accepted'],
        [KNOWN[1], 'skipped'],
      ]),
    );
  });

  it('names the first unknown id (with the closest known one), a bad verdict, and a file that is no map', () => {
    expect(fails(`${KNOWN[0]!.replace('/001', '/009')}: accepted\n`)).toBe(
      `v.yaml: "01JF3Q8X9ZK2M4N6P8R0T2V4W6/009" is no finding of this run: did you mean ${KNOWN[0]}? (bounce grade --list prints them)`,
    );
    expect(fails('nothing: accepted\n')).toMatch(/"nothing" is no finding of this run: bounce grade --list prints the ids/);
    expect(fails(`${KNOWN[0]}: ACCEPTED\n`)).toBe(`v.yaml: the verdict of ${KNOWN[0]} is "ACCEPTED": use one of accepted, rejected, skipped`);
    expect(fails(`${KNOWN[0]}: [accepted]\n`)).toMatch(/the verdict of .* is "accepted": use one of/);
    expect(fails('- a\n')).toMatch(/^v\.yaml is not a map of finding id to verdict/);
    expect(fails('')).toMatch(/^v\.yaml holds no verdicts/);
    expect(fails('a: [\n')).toMatch(/^v\.yaml: invalid YAML/);
  });
});
